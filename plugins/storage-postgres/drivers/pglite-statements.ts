import { type PGlite, parse, protocol } from '@electric-sql/pglite'

const { serialize } = protocol

/** The most statement texts kept prepared; the least recently used one is closed beyond that. */
const CAPACITY = 256

interface Prepared {
	name: string
	/** The parameter types PostgreSQL inferred, which pick each value's serializer. */
	types: number[]
}

/**
 * `PGlite.query` parses and describes its statement on every call (an unnamed statement). These are named statements,
 * parsed once per text; how each execution is planned is the session's `plan_cache_mode`. Every step is the one
 * `query` takes (the same serializers and result parsers), on PGlite's protocol interface.
 */
export class PgliteStatements {
	private readonly prepared = new Map<string, Prepared>()
	/** Statements dropped from the cache, closed at the start of the next run (never between an error and Sync). */
	private readonly closing: string[] = []
	private count = 0

	constructor(
		private readonly pg: PGlite,
		private readonly capacity = CAPACITY,
	) {}

	/**
	 * One statement outside a transaction: waits for any running transaction, as `PGlite.query` does. A statement
	 * found stale is prepared again and run once more (it failed before running).
	 */
	async query<T>(text: string, params: unknown[]): Promise<T[]> {
		const once = () => this.pg._runExclusiveTransaction(() => this.inTransaction<T>(text, params))
		const rows = await once().catch((error) => (isStale(error) ? once() : Promise.reject(error)))
		await this.pg.syncToFs()
		return rows
	}

	/** One statement inside a transaction this caller holds (`PGlite.transaction`'s callback). */
	inTransaction<T>(text: string, params: unknown[]): Promise<T[]> {
		return this.pg._runExclusiveQuery(() => this.run<T>(text, params))
	}

	/** How many statements are prepared now. */
	get size(): number {
		return this.prepared.size
	}

	private async run<T>(text: string, params: unknown[]): Promise<T[]> {
		const messages = []
		try {
			for (const name of this.closing.splice(0)) await this.send(serialize.close({ type: 'S', name }))
			const statement = await this.statement(text)
			const values = params.map((value, i) => {
				if (value === null || value === undefined) return null
				const serializer = this.pg.serializers[statement.types[i]!]
				return serializer ? serializer(value) : String(value)
			})
			messages.push(...(await this.send(serialize.bind({ statement: statement.name, values }))))
			messages.push(...(await this.send(serialize.describe({ type: 'P' }))))
			messages.push(...(await this.send(serialize.execute({}))))
		} catch (error) {
			// A statement whose tables changed shape (or that was dropped) is prepared again on the next call.
			if (isStale(error)) this.forget(text)
			throw error
		} finally {
			await this.send(serialize.sync())
		}
		return parse.parseResults(messages, this.pg.parsers)[0]!.rows as T[]
	}

	private async statement(text: string): Promise<Prepared> {
		const known = this.prepared.get(text)
		if (known) {
			this.prepared.delete(text)
			this.prepared.set(text, known)
			return known
		}
		const name = `memory_${++this.count}`
		await this.send(serialize.parse({ name, text }))
		const types = parse.parseDescribeStatementResults(await this.send(serialize.describe({ type: 'S', name })))
		const statement = { name, types }
		this.prepared.set(text, statement)
		if (this.prepared.size > this.capacity) this.forget(this.prepared.keys().next().value!)
		return statement
	}

	private forget(text: string): void {
		const statement = this.prepared.get(text)
		if (!statement) return
		this.prepared.delete(text)
		this.closing.push(statement.name)
	}

	private send(message: Uint8Array) {
		return this.pg.execProtocolStream(message, { syncToFs: false })
	}
}

/** PostgreSQL's "cached plan must not change result type" (0A000) and "prepared statement does not exist" (26000). */
function isStale(error: unknown): boolean {
	const code = (error as { code?: unknown })?.code
	return code === '0A000' || code === '26000'
}
