import postgres from 'postgres'

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL

/** A fresh database on the test server, dropped by `drop()`. */
export async function createTestDatabase(prefix = 'memtest'): Promise<{ url: string; drop: () => Promise<void> }> {
	if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is not set')
	const name = `${prefix}_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`
	const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} })
	await admin.unsafe(`CREATE DATABASE ${name}`)
	await admin.end()
	const url = new URL(TEST_DATABASE_URL)
	url.pathname = `/${name}`
	return {
		url: url.toString(),
		async drop() {
			const cleanup = postgres(TEST_DATABASE_URL!, { max: 1, onnotice: () => {} })
			await cleanup.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
			await cleanup.end()
		},
	}
}
