import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { PGlite } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite-pgvector'
import { PgliteStatements } from '../../plugins/storage-postgres/drivers/pglite-statements.ts'

describe('PGlite named statements', () => {
	let pg: PGlite
	let statements: PgliteStatements
	const prepared = async () =>
		(await pg.query<{ name: string; statement: string }>('SELECT name, statement FROM pg_prepared_statements')).rows
	beforeAll(async () => {
		pg = await PGlite.create({ extensions: { vector } })
		await pg.exec(`CREATE EXTENSION vector;
			CREATE TABLE items (id text PRIMARY KEY, n int, tags text[], meta jsonb, at timestamptz, embedding vector(3));
			INSERT INTO items SELECT 'i' || g, g, ARRAY['t' || (g % 3)], jsonb_build_object('g', g), '2026-01-01'::timestamptz + g * interval '1 day', ('[' || g || ',1,0]')::vector FROM generate_series(1, 200) g;
			ANALYZE items`)
		statements = new PgliteStatements(pg, 4)
	})
	afterAll(() => pg.close())

	it('answers as PGlite.query does, whatever the types', async () => {
		const text = `SELECT id, n, tags, meta, at, embedding <=> $4::vector AS distance
			FROM items WHERE n > $1 AND tags && $2::text[] AND meta @> $3::jsonb AND at IS NOT NULL ORDER BY n LIMIT 5`
		const params = [150, ['t1'], JSON.stringify({ g: 151 }), '[1,1,0]']
		expect(await statements.query(text, params)).toEqual((await pg.query(text, params)).rows)
		expect(await statements.query('SELECT $1::text AS a, $2::int AS b', [null, undefined])).toEqual([
			{ a: null, b: null },
		])
	})

	it('parses a statement once, whatever the number of calls', async () => {
		const text = 'SELECT id FROM items WHERE n = $1'
		for (let n = 1; n <= 8; n++) expect(await statements.query(text, [n])).toEqual([{ id: `i${n}` }])
		const named = await prepared()
		expect(named.filter((row) => row.statement === text)).toHaveLength(1)
		expect(named.filter((row) => row.name.startsWith('memory_')).length).toBe(statements.size)
	})

	it('closes the least recently used statement beyond its capacity', async () => {
		for (let k = 0; k < 10; k++) await statements.query(`SELECT $1::int + ${k} AS v`, [k])
		expect(statements.size).toBe(4)
		expect((await prepared()).length).toBeLessThanOrEqual(5)
	})

	it('keeps the connection usable after a failing statement, with the error code', async () => {
		const failure = await statements.query('SELECT 1 / $1::int AS v', [0]).catch((error) => error)
		expect(failure.code).toBe('22012')
		expect(await statements.query('SELECT 1 / $1::int AS v', [1])).toEqual([{ v: 1 }])
	})

	it('runs inside a transaction, and a rollback undoes its writes but keeps the statement', async () => {
		const insert = 'INSERT INTO items (id, n) VALUES ($1, $2)'
		await pg
			.transaction(async () => {
				await statements.inTransaction(insert, ['rolled', 1])
				throw new Error('roll back')
			})
			.catch(() => {})
		expect((await pg.query("SELECT id FROM items WHERE id = 'rolled'")).rows).toEqual([])
		await pg.transaction(() => statements.inTransaction(insert, ['kept', 2]))
		expect((await pg.query("SELECT n FROM items WHERE id = 'kept'")).rows).toEqual([{ n: 2 }])
	})

	it('prepares a statement again when its table changed shape', async () => {
		const text = 'SELECT * FROM items WHERE id = $1'
		expect(Object.keys((await statements.query<object>(text, ['i1']))[0]!)).not.toContain('extra')
		await pg.exec('ALTER TABLE items ADD COLUMN extra int')
		expect(Object.keys((await statements.query<object>(text, ['i1']))[0]!)).toContain('extra')
	})
})
