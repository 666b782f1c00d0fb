/**
 * Retrieval quality on the LoCoMo conversations in `LOCOMO_DIR` (by default ../shared/datasets/locomo-dev): each
 * session is ingested as one document of `Speaker: text` lines (instant dreaming, session by session), every question
 * with evidence is asked through /v3/search and /v4/search (each mode), and results are walked in rank order:
 * evidence found within 250 / 500 / 1,000 returned words, session recall@1/@5 and MRR, next to a BM25 ranking of
 * single turns computed in the same run with wink-bm25-text-search.
 *
 * The sessions are then ingested a second time, in other containers, as a third-party client written for the hosted
 * API sends them: a date preamble and the session as JSON inside `content`, default (dynamic) dreaming. Memories
 * and hybrid modes are asked right after `done` (dreaming held back, so no memory exists yet: memories mode answers
 * from provisional chunks), and again after a restart lets the memories form.
 *
 *   bun bench/locomo.ts [--driver embedded|postgres] [--dump scores.json] [--no-json]
 *
 * `--dump` writes every question's score per system, so two runs (or two versions of the code) can be compared
 * question by question.
 */
import { writeFileSync } from 'node:fs'
import { buildBm25 } from './lib/bm25.ts'
import { BenchClient } from './lib/http.ts'
import { CATEGORIES, type Conversation, LOCOMO_DIR, loadConversations, type Turn, turnLine } from './lib/locomo-data.ts'
import { type ConversationIndex, ingestConversation, waitForMemories } from './lib/locomo-ingest.ts'
import { printMachine } from './lib/machine.ts'
import { readMemorySources } from './lib/memory-sources.ts'
import { type QuestionScore, scoreWalk, type WalkItem, wordCount } from './lib/retrieval.ts'
import { startServer } from './lib/server.ts'
import { createStore, type Driver, driversToRun, flagValue, prepareStore } from './lib/store.ts'
import { type Cell, fixed, heading, note, printTable } from './lib/table.ts'

const BUDGETS = [250, 500, 1_000]
const V4_MODES = ['memories', 'hybrid', 'documents'] as const

interface Scored {
	system: string
	question: string
	category: number
	score: QuestionScore
	serverMs: number | null
}

function bm25Baseline(conversations: Conversation[]): Scored[] {
	const scored: Scored[] = []
	for (const conversation of conversations) {
		const turns = new Map<string, Turn>(conversation.sessions.flatMap((s) => s.turns.map((t) => [t.diaId, t])))
		const index = buildBm25([...turns.values()].map((turn) => ({ id: turn.diaId, text: turnLine(turn) })))
		for (const question of conversation.questions) {
			const items: WalkItem[] = index.search(question.question, 200).map((id) => {
				const turn = turns.get(id)!
				const words = wordCount(turnLine(turn))
				return { words, turns: [{ diaId: id, endWord: words }], sessions: [turn.session] }
			})
			scored.push({
				system: 'BM25 single turns (wink-bm25-text-search)',
				question: question.question,
				category: question.category,
				score: scoreWalk(items, question.evidence, BUDGETS),
				serverMs: null,
			})
		}
	}
	return scored
}

/** A v4 answer kept until the server stopped, so memory sources can be read from the store to score it. */
interface PendingV4 {
	system: string
	index: ConversationIndex
	question: Conversation['questions'][number]
	results: any[]
	serverMs: number
}

/**
 * Dynamic dreaming held back while the JSON-in-text sessions are searched (they are searched right after `done`,
 * before any memory exists), then let go so the same sessions can be searched once their memories are formed.
 */
const HOLD_DREAMING = { MEMORY_DREAMING_QUIET_SECONDS: '86400', MEMORY_DREAMING_MAX_WAIT_SECONDS: '86400' }
const FORM_NOW = { MEMORY_DREAMING_QUIET_SECONDS: '1', MEMORY_DREAMING_MAX_WAIT_SECONDS: '1' }
const JSON_RIGHT_AFTER_DONE = 'JSON-in-text, dynamic, right after done'
const JSON_AFTER_FORMATION = 'JSON-in-text, dynamic, after formation'

async function askService(driver: Driver, conversations: Conversation[], scored: Scored[]): Promise<void> {
	const store = await createStore(driver)
	const pending: PendingV4[] = []
	try {
		const { key } = await prepareStore(store)
		const jsonIndexes: ConversationIndex[] = []
		const server = await startServer(store, HOLD_DREAMING)
		try {
			const client = new BenchClient(server.url, key)
			const v4 = await client.hasRoute('POST', '/v4/search', { q: 'probe' })
			if (!v4)
				note(`${driver}: /v4/search is not available yet, so memories, hybrid and documents modes are not measured.`)
			for (const conversation of conversations) {
				const started = performance.now()
				const index = await ingestConversation(client, conversation)
				console.error(
					`[locomo/${driver}] conversation ${conversation.id}: ${conversation.sessions.length} sessions ingested in ${((performance.now() - started) / 1000).toFixed(1)} s; ${index.unmappedTurns} turns not found in any chunk`,
				)
				for (const question of conversation.questions) {
					await askV3(client, index, question, scored, driver)
					if (v4) for (const mode of V4_MODES) await askV4(client, index, question, mode, pending, driver)
				}
			}
			if (v4 && !skipsJson()) {
				for (const conversation of conversations) {
					const started = performance.now()
					const index = await ingestConversation(client, conversation, 'json-in-text')
					jsonIndexes.push(index)
					console.error(
						`[locomo/${driver}] conversation ${conversation.id} as JSON in text: ingested in ${((performance.now() - started) / 1000).toFixed(1)} s; ${index.unmappedTurns} turns not found in any chunk`,
					)
					for (const question of conversation.questions) {
						for (const mode of ['memories', 'hybrid'] as const)
							await askV4(client, index, question, mode, pending, driver, JSON_RIGHT_AFTER_DONE)
					}
				}
			}
		} finally {
			await server.stop()
		}
		if (jsonIndexes.length > 0) {
			const again = await startServer(store, FORM_NOW)
			try {
				const client = new BenchClient(again.url, key)
				const started = performance.now()
				for (const index of jsonIndexes) await waitForMemories(client, index)
				console.error(
					`[locomo/${driver}] JSON-in-text memories formed ${((performance.now() - started) / 1000).toFixed(1)} s after restart`,
				)
				for (const index of jsonIndexes) {
					for (const question of index.conversation.questions) {
						for (const mode of ['memories', 'hybrid'] as const)
							await askV4(client, index, question, mode, pending, driver, JSON_AFTER_FORMATION)
					}
				}
			} finally {
				await again.stop()
			}
		}
		const memoryIds = pending.flatMap((p) =>
			p.results.filter((r) => typeof r.chunk !== 'string').map((r) => String(r.id)),
		)
		const sources = await readMemorySources(store, [...new Set(memoryIds)])
		for (const { system, index, question, results, serverMs } of pending) {
			const items = results.map((result) =>
				typeof result.chunk === 'string'
					? index.chunkById(result.id, result.chunk)
					: index.memoryItem(result, sources.get(String(result.id))),
			)
			scored.push({
				system,
				question: question.question,
				category: question.category,
				score: scoreWalk(items, question.evidence, BUDGETS),
				serverMs,
			})
		}
	} finally {
		await store.dispose()
	}
}

/** `--no-json` leaves out the JSON-in-text shape (half the run time). */
function skipsJson(): boolean {
	return process.argv.includes('--no-json')
}

async function askV3(
	client: BenchClient,
	index: ConversationIndex,
	question: Conversation['questions'][number],
	scored: Scored[],
	driver: Driver,
): Promise<void> {
	const reply = await client.post('/v3/search', { q: question.question, containerTag: index.containerTag, limit: 100 })
	if (reply.status !== 200) throw new Error(`/v3/search answered ${reply.status}`)
	const chunks = (reply.body.results as any[]).flatMap((result) =>
		(result.chunks as any[]).map((chunk) => ({
			item: index.chunkAt(result.documentId, chunk.position, chunk.content),
			score: chunk.score as number,
		})),
	)
	const push = (system: string, items: WalkItem[]) =>
		scored.push({
			system: `${driver}: ${system}`,
			question: question.question,
			category: question.category,
			score: scoreWalk(items, question.evidence, BUDGETS),
			serverMs: reply.body.timing,
		})
	push(
		'/v3/search (documents as returned)',
		chunks.map((c) => c.item),
	)
	push(
		'/v3/search (chunks re-sorted by score)',
		[...chunks].sort((a, b) => b.score - a.score).map((c) => c.item),
	)
}

async function askV4(
	client: BenchClient,
	index: ConversationIndex,
	question: Conversation['questions'][number],
	mode: (typeof V4_MODES)[number],
	pending: PendingV4[],
	driver: Driver,
	shape?: string,
): Promise<void> {
	const reply = await client.post('/v4/search', {
		q: question.question,
		containerTag: index.containerTag,
		searchMode: mode,
		limit: 100,
		threshold: 0,
		include: { documents: true },
	})
	if (reply.status !== 200) throw new Error(`/v4/search (${mode}) answered ${reply.status}`)
	pending.push({
		system: `${driver}: /v4/search ${mode}${shape ? ` (${shape})` : ''}`,
		index,
		question,
		results: reply.body.results,
		serverMs: reply.body.timing,
	})
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length)
const share = (values: boolean[]) => fixed(mean(values.map(Number)), 3)

function summaryRows(scored: Scored[]): Cell[][] {
	const systems = [...new Set(scored.map((s) => s.system))]
	return systems.map((system) => {
		const rows = scored.filter((s) => s.system === system)
		const timings = rows.flatMap((r) => (r.serverMs === null ? [] : [r.serverMs]))
		return [
			system,
			rows.length,
			...BUDGETS.map((_, i) => share(rows.map((r) => r.score.anyFound[i]!))),
			share(rows.map((r) => r.score.allFound[BUDGETS.length - 1]!)),
			fixed(mean(rows.map((r) => r.score.turnRecall[BUDGETS.length - 1]!)), 3),
			fixed(mean(rows.map((r) => r.score.sessionRecallAt1)), 3),
			fixed(mean(rows.map((r) => r.score.sessionRecallAt5)), 3),
			fixed(mean(rows.map((r) => r.score.reciprocalRank)), 3),
			timings.length ? fixed(mean(timings)) : null,
		]
	})
}

function categoryRows(scored: Scored[]): Cell[][] {
	const systems = [...new Set(scored.map((s) => s.system))]
	const categories = [...new Set(scored.map((s) => s.category))].sort()
	const last = BUDGETS.length - 1
	return systems.map((system) => [
		system,
		...categories.map((category) => {
			const rows = scored.filter((s) => s.system === system && s.category === category)
			return `${share(rows.map((r) => r.score.anyFound[last]!))} (${rows.length})`
		}),
	])
}

function comparison(scored: Scored[]): void {
	const at1000 = (system: string) => {
		const rows = scored.filter((s) => s.system === system)
		return rows.length ? mean(rows.map((r) => Number(r.score.anyFound[BUDGETS.length - 1]))) : null
	}
	const baseline = at1000(scored[0]!.system)!
	for (const system of [...new Set(scored.map((s) => s.system))].slice(1)) {
		const value = at1000(system)!
		console.log(
			`- ${system}: ${fixed(value * 100)}% vs BM25 ${fixed(baseline * 100)}% at 1,000 words: ${value - baseline >= 0 ? '+' : ''}${fixed((value - baseline) * 100)} points (ratio ${fixed(value / baseline, 2)})`,
		)
	}
}

async function main() {
	heading('Retrieval quality (LoCoMo dev)')
	const conversations = loadConversations()
	if (!conversations) {
		console.log(`Skipped: the LoCoMo dev set is not at ${LOCOMO_DIR}.`)
		return
	}
	const drivers = driversToRun()
	await printMachine(drivers.includes('postgres') ? process.env.BENCH_DATABASE_URL : null)
	const questions = conversations.reduce((n, c) => n + c.questions.length, 0)
	console.log(
		`${conversations.length} conversations, ${conversations.reduce((n, c) => n + c.sessions.length, 0)} sessions, ${questions} questions with evidence. "Found @N" = at least one evidence turn of the question lies within the first N returned words (a turn counts when the words before its end fit); "all found" = every evidence turn does; "turn recall" = share of evidence turns within 1,000 words; sessions ranked by first appearance. Results requested with limit 100 (v4: threshold 0).`,
	)
	const scored = bm25Baseline(conversations)
	for (const driver of drivers) await askService(driver, conversations, scored)
	printTable(
		'Evidence found within a context budget, session recall and MRR',
		[
			'system',
			'questions',
			'found @250',
			'found @500',
			'found @1000',
			'all found @1000',
			'turn recall @1000',
			'session R@1',
			'session R@5',
			'session MRR',
			'server ms (mean)',
		],
		summaryRows(scored),
	)
	const categories = [...new Set(scored.map((s) => s.category))].sort()
	printTable(
		'Evidence found within 1,000 words, per LoCoMo category (questions)',
		['system', ...categories.map((c) => `${c} ${CATEGORIES[c] ?? ''}`.trim())],
		categoryRows(scored),
	)
	console.log('\nAgainst the BM25 single-turn baseline (found @1000):\n')
	comparison(scored)
	const dump = flagValue(process.argv.slice(2), 'dump')
	if (dump) writeFileSync(dump, JSON.stringify(scored))
}

await main()
