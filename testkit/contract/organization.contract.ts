import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { StoragePlugin } from '../../core/index.ts'
import { context, type OpenedStorage } from './storage.contract.ts'

/** Organization settings, usage counters and quotas: every storage plugin must pass this suite. */
export function organizationContract(label: string, open: () => Promise<OpenedStorage>): void {
	describe(label, () => {
		let opened: OpenedStorage
		let storage: StoragePlugin
		beforeAll(async () => {
			opened = await open()
			storage = opened.storage
			await storage.init?.(context())
		})
		afterAll(async () => {
			await storage?.close?.()
			await opened?.cleanup()
		})
		const newOrg = async () => (await storage.orgs.create(`org-${crypto.randomUUID()}`)).id

		it('keeps settings per organization and replaces them whole', async () => {
			const [a, b] = [await newOrg(), await newOrg()]
			expect(await storage.settings.get(a)).toEqual({})
			await storage.settings.put(a, { chunkSize: 512, nested: { x: [1, 2] } })
			await storage.settings.put(b, { chunkSize: 64 })
			expect(await storage.settings.get(a)).toEqual({ chunkSize: 512, nested: { x: [1, 2] } })
			await storage.settings.put(a, { filterPrompt: 'only work' })
			expect(await storage.settings.get(a)).toEqual({ filterPrompt: 'only work' })
			expect(await storage.settings.get(b)).toEqual({ chunkSize: 64 })
		})

		it('adds usage per metric and day, summing repeated keys in one write', async () => {
			const [a, b] = [await newOrg(), await newOrg()]
			await storage.usage.add([
				{ orgId: a, metric: 'searches', day: '2026-11-20', amount: 2 },
				{ orgId: a, metric: 'searches', day: '2026-11-20', amount: 3 },
				{ orgId: a, metric: 'searches', day: '2026-11-21', amount: 1 },
				{ orgId: a, metric: 'documents', day: '2026-11-21', amount: 4 },
				{ orgId: b, metric: 'searches', day: '2026-11-21', amount: 100 },
			])
			await storage.usage.add([{ orgId: a, metric: 'searches', day: '2026-11-21', amount: 10 }])
			await storage.usage.add([])
			expect(await storage.usage.daily(a, '2026-11-01')).toEqual([
				{ orgId: a, metric: 'searches', day: '2026-11-20', amount: 5 },
				{ orgId: a, metric: 'documents', day: '2026-11-21', amount: 4 },
				{ orgId: a, metric: 'searches', day: '2026-11-21', amount: 11 },
			])
			expect(await storage.usage.daily(a, '2026-11-21')).toHaveLength(2)
		})

		it('sets, replaces and removes quotas', async () => {
			const org = await newOrg()
			expect(await storage.usage.quotas(org)).toEqual([])
			await storage.usage.setQuota(org, 'searches', { period: 'month', max: 1000 })
			await storage.usage.setQuota(org, 'searches', { period: 'day', max: 50 })
			await storage.usage.setQuota(org, 'profiles', { period: 'month', max: 7 })
			expect(await storage.usage.quotas(org)).toEqual([
				{ metric: 'profiles', period: 'month', max: 7 },
				{ metric: 'searches', period: 'day', max: 50 },
			])
			await storage.usage.setQuota(org, 'profiles', null)
			expect(await storage.usage.quotas(org)).toEqual([{ metric: 'searches', period: 'day', max: 50 }])
		})
	})
}
