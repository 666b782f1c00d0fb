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

		it('keeps feedback per organization, newest first, up to a number a UTC day', async () => {
			const [a, b] = [await newOrg(), await newOrg()]
			const report = (n: number) => ({
				id: `fb_${crypto.randomUUID().slice(0, 10)}`,
				keyId: 'key_1',
				type: 'bug' as const,
				title: `report ${n}`,
				description: 'it broke',
				...(n === 2 ? { endpoint: '/ns/x/search', contactEmail: 'ann@example.com' } : {}),
			})
			const answers = await Promise.all([1, 2, 3, 4].map((n) => storage.feedback.add(a, report(n), 3)))
			expect(answers.filter((answer) => answer === null)).toHaveLength(1)
			expect(answers.flatMap((answer) => (answer ? [answer.remaining] : [])).sort()).toEqual([0, 1, 2])
			expect((await storage.feedback.add(b, report(5), 3))!.remaining).toBe(2)
			const listed = await storage.feedback.list(a, { limit: 10, offset: 0 })
			expect(listed.total).toBe(3)
			expect(listed.feedback.every((entry) => entry.orgId === a && entry.createdAt instanceof Date)).toBe(true)
			const stored = answers.flatMap((answer) => (answer ? [answer.feedback] : []))
			const second = stored.find((entry) => entry.title === 'report 2')
			if (second) expect(second).toMatchObject({ endpoint: '/ns/x/search', contactEmail: 'ann@example.com' })
			const page = await storage.feedback.list(a, { limit: 2, offset: 2 })
			expect(page).toEqual({ feedback: [listed.feedback[2]!], total: 3 })
			expect(await storage.feedback.list(a, { limit: 2, offset: 10 })).toEqual({ feedback: [], total: 3 })
			expect((await storage.feedback.list(b, { limit: 10, offset: 0 })).feedback.map((entry) => entry.title)).toEqual([
				'report 5',
			])
		})
	})
}
