import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { inForeground, SEARCH_GRACE_MS } from '../../core/jobs/priority.ts'
import {
	formationCandidateBound,
	inGroups,
	MAX_FORMATION_CANDIDATES,
	MAX_FORMATION_CANDIDATES_WHILE_SEARCHING,
} from '../../core/memory/form-document.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'
import { waitFor } from '../../testkit/wait.ts'

describe('inGroups', () => {
	const sizes = (groups: number[][]) => groups.map((group) => group.reduce((sum, n) => sum + n, 0))

	it('keeps the order and puts no more candidates in a group than the bound', () => {
		const counts = Array.from({ length: 40 }, (_, i) => 10 + (i % 7) * 20)
		const groups = inGroups(counts, (n) => n, MAX_FORMATION_CANDIDATES)
		expect(groups.flat()).toEqual(counts)
		for (const size of sizes(groups)) expect(size).toBeLessThanOrEqual(MAX_FORMATION_CANDIDATES)
		// Groups are filled: each next item would have crossed the bound.
		for (const [i, group] of groups.slice(0, -1).entries()) {
			expect(sizes([group])[0]! + groups[i + 1]![0]!).toBeGreaterThan(MAX_FORMATION_CANDIDATES)
		}
	})

	it('forms a document with more candidates than the bound alone, and small ones together', () => {
		const big = MAX_FORMATION_CANDIDATES + 50
		expect(inGroups([5, big, 5, 5], (n) => n, MAX_FORMATION_CANDIDATES)).toEqual([[5], [big], [5, 5]])
		expect(inGroups([], (n: number) => n, MAX_FORMATION_CANDIDATES)).toEqual([])
	})
})

/** Holds a search open (foreground work) until the returned function is called. */
function holdSearch(): () => Promise<void> {
	let release = () => {}
	const searching = inForeground(() => new Promise<void>((resolve) => (release = resolve)))
	return () => {
		release()
		return searching
	}
}

describe('formationCandidateBound', () => {
	it('forms smaller groups while searches come in, on a store whose one connection a transaction holds', async () => {
		const release = holdSearch()
		expect(formationCandidateBound({ oneConnection: true })).toBe(MAX_FORMATION_CANDIDATES_WHILE_SEARCHING)
		expect(formationCandidateBound({ oneConnection: false })).toBe(MAX_FORMATION_CANDIDATES)
		expect(formationCandidateBound({})).toBe(MAX_FORMATION_CANDIDATES)
		await release()
		expect(formationCandidateBound({ oneConnection: true })).toBe(MAX_FORMATION_CANDIDATES_WHILE_SEARCHING)
		await Bun.sleep(SEARCH_GRACE_MS + 10)
		expect(formationCandidateBound({ oneConnection: true })).toBe(MAX_FORMATION_CANDIDATES)
	})
})

describe('dreaming on the embedded store while a search runs', () => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService('pglite', {
			env: { MEMORY_DREAMING_QUIET_SECONDS: '1', MEMORY_DREAMING_MAX_WAIT_SECONDS: '2' },
		})
	}, 180_000)
	afterAll(() => t?.stop())

	const PEOPLE = ['Dana', 'Marco', 'Ines', 'Rui', 'Sofia', 'Tiago', 'Carla', 'Nuno', 'Joana', 'Pedro', 'Rita', 'Hugo']
	const PLACES = ['Lisbon', 'Porto', 'Faro', 'Braga', 'Evora', 'Coimbra']
	const report = (person: string) =>
		PLACES.map((place, i) => `${person} opened the ${place} office number ${i + 1} on Monday.`).join(' ')

	it('forms the container in transactions of at most the smaller bound of candidates', async () => {
		const release = holdSearch()
		try {
			const { body } = await t.json('POST', '/v3/documents/batch', {
				documents: PEOPLE.map((person) => ({ content: report(person) })),
				containerTag: 'formed_while_searching',
				dreaming: 'dynamic',
			})
			for (const { id } of body.results as { id: string }[]) {
				await waitFor(async () => {
					const { body: document } = await t.json('GET', `/v3/documents/${id}`)
					return document.status === 'failed' || document.dreamingStatus === 'done'
				}, 60_000)
			}
		} finally {
			await release()
		}
		const { body } = await t.json('POST', '/v4/memories/list', {
			containerTags: ['formed_while_searching'],
			limit: 200,
		})
		const entries = body.memoryEntries as { createdAt: string }[]
		expect(entries.length).toBeGreaterThan(MAX_FORMATION_CANDIDATES_WHILE_SEARCHING * 2)
		// A memory's created_at is its transaction's start (now()): one value per formation transaction.
		const perTransaction = new Map<string, number>()
		for (const entry of entries) perTransaction.set(entry.createdAt, (perTransaction.get(entry.createdAt) ?? 0) + 1)
		for (const count of perTransaction.values())
			expect(count).toBeLessThanOrEqual(MAX_FORMATION_CANDIDATES_WHILE_SEARCHING)
	}, 120_000)
})
