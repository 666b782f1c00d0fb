import { describe, expect, it } from 'bun:test'
import { inVersionOrder, MIGRATIONS } from '../../plugins/storage-postgres/queries/schema.ts'

describe('storage migrations', () => {
	it('are in version order with one migration per version', () => {
		const versions = MIGRATIONS.map((migration) => migration.version)
		expect(new Set(versions).size).toBe(versions.length)
		expect(versions).toEqual([...versions].sort((a, b) => a - b))
	})

	it('refuses two migrations of one version, as the second would never be applied', () => {
		const sql = () => ''
		expect(() =>
			inVersionOrder([
				{ version: 2, name: 'a', sql },
				{ version: 2, name: 'b', sql },
			]),
		).toThrow('migrations a and b both claim version 2')
	})
})
