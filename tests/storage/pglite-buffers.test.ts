import { describe, expect, it } from 'bun:test'
import { openPglite } from '../../plugins/storage-postgres/drivers/pglite.ts'
import { storagePostgres } from '../../plugins/storage-postgres/index.ts'
import { context } from '../../testkit/contract/storage.contract.ts'

async function sharedBuffers(storage: ReturnType<typeof storagePostgres>) {
	const database = storage.jobDatabase()
	if (database.kind !== 'executor') throw new Error('expected the embedded driver')
	const { rows } = (await database.executeSql('SHOW shared_buffers', [])) as { rows: { shared_buffers: string }[] }
	return rows[0]!.shared_buffers
}

describe('embedded store buffer cache', () => {
	it('keeps 64MB of shared buffers unless told otherwise, and the size it is given', async () => {
		for (const [options, expected] of [
			[{}, '64MB'],
			[{ sharedBuffers: '32MB' }, '32MB'],
		] as const) {
			const storage = storagePostgres({ dataDir: 'memory://', ...options })
			await storage.init?.(context())
			try {
				expect(await sharedBuffers(storage)).toBe(expected)
			} finally {
				await storage.close?.()
			}
		}
	}, 180_000)

	it('refuses a size PostgreSQL would not read', async () => {
		await expect(openPglite('memory://', '64 megabytes')).rejects.toThrow('shared buffers must be a size such as 64MB')
	})
})
