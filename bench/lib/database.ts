import postgres from 'postgres'

/** The PostgreSQL server the benches use (an admin URL: each bench creates and drops its own databases). */
export const BENCH_DATABASE_URL = process.env.BENCH_DATABASE_URL || null

export interface BenchDatabase {
	url: string
	name: string
	drop(): Promise<void>
}

export async function createBenchDatabase(adminUrl: string, prefix = 'bench'): Promise<BenchDatabase> {
	const name = `${prefix}_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`
	const admin = postgres(adminUrl, { max: 1, onnotice: () => {} })
	await admin.unsafe(`CREATE DATABASE ${name}`)
	await admin.end()
	const url = new URL(adminUrl)
	url.pathname = `/${name}`
	return {
		url: url.toString(),
		name,
		async drop() {
			const cleanup = postgres(adminUrl, { max: 1, onnotice: () => {} })
			await cleanup.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
			await cleanup.end()
		},
	}
}

/** Bytes the database takes on disk (tables, indexes, TOAST, the job queue). */
export async function databaseBytes(url: string): Promise<number> {
	const sql = postgres(url, { max: 1, onnotice: () => {} })
	try {
		const [row] = await sql<{ size: string }[]>`SELECT pg_database_size(current_database())::text AS size`
		return Number(row!.size)
	} finally {
		await sql.end({ timeout: 1 })
	}
}
