/**
 * One search workload against two checkouts side by side: this one (A) and `--root DIR` (B, e.g. a worktree of an
 * older commit with its own `bun install`). Each runs its own server on its own embedded store with the same LoCoMo
 * conversations ingested; then every question is asked of both, alternating which goes first (A B, B A, ...), so
 * the machine's noise falls on both alike. Prints server and client p50 / p95 of each, the ratio B / A, and the
 * evidence found within 1,000 returned words (chunks only) as a check that both return the same results.
 *
 *   bun bench/compare.ts --root ../wt-perf-base [--conversations 1] [--questions 60] [--rounds 2]
 *   [--workloads hybrid10,hybrid100,...] [--driver embedded|postgres] [--adds [--add-runs 2]]
 *
 * Workloads: `hybrid10` and `hybrid100` (/v4/search hybrid, limit 10 / 100, transcript sessions with instant
 * dreaming), `v3` (/v3/search limit 10), `memories10` (/v4/search memories, limit 10), `memorybench` (memorybench's
 * own request: hybrid, limit 30, threshold 0.3, include summaries and chunks, on sessions sent as JSON in text with
 * dynamic dreaming, after formation). `--adds` also measures single adds to another container while a container's
 * sessions form their memories (dynamic dreaming), on each side in turn.
 */
import { join, resolve } from 'node:path'
import { commitOf, prepareKey } from './lib/checkout.ts'
import { BenchClient, type Reply } from './lib/http.ts'
import { type Conversation, LOCOMO_DIR, loadConversations } from './lib/locomo-data.ts'
import { type ConversationIndex, ingestConversation, waitForMemories } from './lib/locomo-ingest.ts'
import { printMachine } from './lib/machine.ts'
import { scoreWalk, type WalkItem } from './lib/retrieval.ts'
import { type ServerProcess, startServer } from './lib/server.ts'
import { summarize } from './lib/stats.ts'
import { type BenchStore, createStore, type Driver, flagValue } from './lib/store.ts'
import { fixed, ms, note, printTable } from './lib/table.ts'

const HERE = resolve(join(import.meta.dir, '..'))
const WORKLOADS = ['hybrid10', 'hybrid100', 'v3', 'memories10', 'memorybench'] as const
type Workload = (typeof WORKLOADS)[number]
const FORM_NOW = { MEMORY_DREAMING_QUIET_SECONDS: '1', MEMORY_DREAMING_MAX_WAIT_SECONDS: '1' }

interface Side {
	label: string
	root: string
	commit: string
	store: BenchStore
	server: ServerProcess
	client: BenchClient
	transcripts: ConversationIndex[]
	json: ConversationIndex[]
}

interface Sample {
	serverMs: number
	clientMs: number
	bytes: number
	found: boolean
	/** Results in the answer, and the chunks they carry (a v3 document's chunks; a chunk result is one). */
	results: number
	chunks: number
}

async function openSide(label: string, root: string, driver: Driver): Promise<Side> {
	const store = await createStore(driver)
	const key = prepareKey(root, store)
	const server = await startServer(store, FORM_NOW, 180_000, [], root)
	return {
		label,
		root,
		commit: commitOf(root),
		store,
		server,
		client: new BenchClient(server.url, key),
		transcripts: [],
		json: [],
	}
}

async function ingest(side: Side, conversations: Conversation[], json: boolean): Promise<void> {
	const started = performance.now()
	for (const conversation of conversations) {
		side.transcripts.push(await ingestConversation(side.client, conversation))
		if (json) side.json.push(await ingestConversation(side.client, conversation, 'json-in-text'))
	}
	for (const index of side.json) await waitForMemories(side.client, index)
	console.error(`[compare] ${side.label} ingested in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

function request(workload: Workload, q: string, index: ConversationIndex): [string, unknown] {
	const containerTag = index.containerTag
	switch (workload) {
		case 'hybrid10':
			return ['/v4/search', { q, containerTag, searchMode: 'hybrid', limit: 10 }]
		case 'hybrid100':
			return ['/v4/search', { q, containerTag, searchMode: 'hybrid', limit: 100 }]
		case 'memories10':
			return ['/v4/search', { q, containerTag, limit: 10 }]
		case 'v3':
			return ['/v3/search', { q, containerTags: [containerTag], limit: 10 }]
		case 'memorybench':
			return [
				'/v4/search',
				{
					q,
					containerTag,
					limit: 30,
					threshold: 0.3,
					searchMode: 'hybrid',
					include: { summaries: true, chunks: true },
				},
			]
	}
}

/** Evidence within the first 1,000 returned words, counting chunk results only (memories carry no turns here). */
function found(reply: Reply, index: ConversationIndex, evidence: string[]): boolean {
	const results = (reply.body?.results ?? []) as any[]
	const items: WalkItem[] = results.flatMap((result): WalkItem[] => {
		if (typeof result.chunk === 'string') return [index.chunkById(result.id, result.chunk)]
		if (Array.isArray(result.chunks) && result.documentId)
			return result.chunks.map((chunk: any) => index.chunkAt(result.documentId, chunk.position, chunk.content))
		const text = String(result.memory ?? '')
		return [{ words: text.split(/\s+/).filter(Boolean).length, turns: [], sessions: [] }]
	})
	return scoreWalk(items, evidence, [1_000]).anyFound[0] ?? false
}

async function ask(side: Side, workload: Workload, conversation: number, question: Conversation['questions'][number]) {
	const index = workload === 'memorybench' ? side.json[conversation]! : side.transcripts[conversation]!
	const [path, body] = request(workload, question.question, index)
	const started = performance.now()
	const response = await fetch(`${side.client.baseUrl}${path}`, {
		method: 'POST',
		headers: { authorization: `Bearer ${side.client.key}`, 'content-type': 'application/json' },
		body: JSON.stringify(body),
	})
	const text = await response.text()
	const clientMs = performance.now() - started
	if (response.status !== 200)
		throw new Error(`${side.label} ${path} answered ${response.status}: ${text.slice(0, 300)}`)
	const serverMs = Number(/dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '')?.[1] ?? Number.NaN)
	const reply: Reply = { status: response.status, body: JSON.parse(text), ms: clientMs }
	const results = (reply.body?.results ?? []) as any[]
	return {
		serverMs,
		clientMs,
		bytes: text.length,
		found: found(reply, index, question.evidence),
		results: results.length,
		chunks: results.reduce(
			(sum, result) =>
				sum + (Array.isArray(result.chunks) ? result.chunks.length : typeof result.chunk === 'string' ? 1 : 0),
			0,
		),
	}
}

async function compareSearch(a: Side, b: Side, conversations: Conversation[], workloads: Workload[], rounds: number) {
	for (const workload of workloads) {
		const rows: (string | number)[][] = []
		const samples: Record<'a' | 'b', Sample[]> = { a: [], b: [] }
		let turn = 0
		for (let round = 0; round < rounds; round++) {
			for (const [c, conversation] of conversations.entries()) {
				for (const question of conversation.questions) {
					const order: ['a' | 'b', Side][] =
						turn++ % 2 === 0
							? [
									['a', a],
									['b', b],
								]
							: [
									['b', b],
									['a', a],
								]
					for (const [key, side] of order) {
						const sample = await ask(side, workload, c, question)
						// The first round warms both servers (caches, JIT); it is not counted when there are more.
						if (round > 0 || rounds === 1) samples[key].push(sample)
					}
				}
			}
		}
		const stat = (list: Sample[], field: 'serverMs' | 'clientMs') => summarize(list.map((s) => s[field]))
		const line = (side: Side, list: Sample[]) => {
			const server = stat(list, 'serverMs')
			const client = stat(list, 'clientMs')
			const mean = (field: 'bytes' | 'results' | 'chunks') => list.reduce((sum, s) => sum + s[field], 0) / list.length
			const share = list.filter((s) => s.found).length / list.length
			return { server, client, kb: mean('bytes') / 1024, results: mean('results'), chunks: mean('chunks'), share, side }
		}
		const la = line(a, samples.a)
		const lb = line(b, samples.b)
		for (const l of [la, lb])
			rows.push([
				workload,
				`${l.side.label} ${l.side.commit}`,
				`${ms(l.server.p50)} / ${ms(l.server.p95)}`,
				`${ms(l.client.p50)} / ${ms(l.client.p95)}`,
				fixed(l.kb),
				`${fixed(l.results)} (${fixed(l.chunks)})`,
				fixed(l.share, 3),
				samples.a.length,
			])
		rows.push([
			workload,
			'ratio B / A',
			`${fixed(lb.server.p50 / la.server.p50, 2)} / ${fixed(lb.server.p95 / la.server.p95, 2)}`,
			`${fixed(lb.client.p50 / la.client.p50, 2)} / ${fixed(lb.client.p95 / la.client.p95, 2)}`,
			'',
			'',
			'',
			'',
		])
		// Each workload's table as soon as it is measured, so a run cut short keeps what it measured.
		printTable(
			`Search, one client, A and B interleaved (ms): ${workload}`,
			[
				'workload',
				'checkout',
				'server p50 / p95',
				'client p50 / p95',
				'KB per answer',
				'results (chunks) per answer',
				'evidence @1,000 words',
				'n',
			],
			rows,
		)
	}
}

/**
 * Single adds (1 KB, instant dreaming, another container) while one container's sessions, sent as JSON in text
 * with dynamic dreaming, form their memories: the add's acknowledgement latency, sides taken in turn.
 */
async function compareAdds(a: Side, b: Side, conversation: Conversation, runs: number) {
	const samples = new Map<Side, number[]>([
		[a, []],
		[b, []],
	])
	for (let run = 0; run < runs; run++) {
		for (const side of run % 2 === 0 ? [a, b] : [b, a]) {
			const forming = { ...conversation, id: `${conversation.id}-adds-${run}` }
			const index = await ingestConversation(side.client, forming, 'json-in-text')
			const formed = waitForMemories(side.client, index).then(() => true)
			let done = false
			void formed.then(() => {
				done = true
			})
			let n = 0
			while (!done) {
				const reply = await side.client.post('/v3/documents', {
					content: `Add ${n++} while a container forms: ${'a short note about the weather and the garden. '.repeat(20)}`,
					containerTag: `adds-${run}`,
					dreaming: 'instant',
				})
				if (reply.status !== 200) throw new Error(`${side.label} add answered ${reply.status}`)
				samples.get(side)!.push(reply.ms)
				await Bun.sleep(100)
			}
		}
	}
	const rows = [a, b].map((side) => {
		const s = summarize(samples.get(side)!)
		return [`${side.label} ${side.commit}`, ms(s.p50), ms(s.p95), ms(s.max), s.count]
	})
	printTable(
		`Single adds while a container's ${conversation.sessions.length} sessions form (client ms)`,
		['checkout', 'p50', 'p95', 'max', 'n'],
		rows,
	)
}

const rootB = flagValue(process.argv.slice(2), 'root')
if (!rootB) {
	console.error('usage: bun bench/compare.ts --root ../other-checkout [--conversations N] [--workloads a,b]')
	process.exit(2)
}
const all = loadConversations()
if (!all) {
	note(`LoCoMo conversations not found in ${LOCOMO_DIR}: skipped.`)
	process.exit(0)
}
const argv = process.argv.slice(2)
const questions = Number(flagValue(argv, 'questions') ?? Number.POSITIVE_INFINITY)
const conversations = all
	.slice(0, Number(flagValue(argv, 'conversations') ?? 1))
	.map((conversation) => ({ ...conversation, questions: conversation.questions.slice(0, questions) }))
const rounds = Number(flagValue(argv, 'rounds') ?? 2)
const workloads = (flagValue(argv, 'workloads') ?? 'hybrid10,hybrid100,memorybench').split(',') as Workload[]
for (const workload of workloads) if (!WORKLOADS.includes(workload)) throw new Error(`unknown workload ${workload}`)
const driver = (flagValue(argv, 'driver') ?? 'embedded') as Driver

await printMachine()
const sides = await Promise.all([openSide('A', HERE, driver), openSide('B', resolve(rootB), driver)])
const [a, b] = sides
try {
	console.log(`\nA = ${a.root} (${a.commit}), B = ${b.root} (${b.commit}), ${driver} store`)
	await Promise.all(sides.map((side) => ingest(side, conversations, workloads.includes('memorybench'))))
	await compareSearch(a, b, conversations, workloads, rounds)
	if (argv.includes('--adds')) await compareAdds(a, b, conversations[0]!, Number(flagValue(argv, 'add-runs') ?? 2))
} finally {
	for (const side of sides) {
		await side.server.stop()
		await side.store.dispose()
	}
}
