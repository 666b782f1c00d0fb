/**
 * Web crawler throughput against a generated site on 127.0.0.1: pages per second crawled (fetch, robots rules,
 * link extraction, reader view) at several politeness delays; pages per second from the first request to
 * searchable, each page handed to POST /v3/documents as the crawler yields it (the way the connector runtime imports
 * an upsert); and a recrawl of the unchanged site (every page a 304).
 *
 * Then the same crawl with the shared fault layer on (testkit/emulators/faults.ts, a website's forms: RFC 9110 429 or
 * 503 with `Retry-After`, or a bare 503), beside the fault-free run: pages imported, failures, seconds, requests per
 * page. A bare 503 fails its page for this crawl (it is kept, and read again at the next one).
 *
 *   bun bench/crawl.ts [--driver embedded|postgres] [--quick] [--crawl-only]
 */
import { webCrawler } from '../connectors/web-crawler/index.ts'
import { type CursorValue, createLogger, type SyncContext, type SyncEvent } from '../core/index.ts'
import { type Faults, faultLayer } from '../testkit/emulators/faults.ts'
import { random, TextGenerator } from '../testkit/text.ts'
import { waitUntilProcessed } from './lib/documents.ts'
import { BenchClient } from './lib/http.ts'
import { printMachine } from './lib/machine.ts'
import { startServer } from './lib/server.ts'
import { createStore, driversToRun, prepareStore, QUICK } from './lib/store.ts'
import { type Cell, fixed, heading, printTable } from './lib/table.ts'
import { loadVocabulary } from './lib/vocabulary.ts'

const PAGES = QUICK ? 60 : 300
const SECTIONS = 10
const DELAYS_MS = QUICK ? [0, 50] : [0, 50, 250]
const DRAIN_TIMEOUT_MS = 15 * 60_000
const CRAWL_ONLY = process.argv.includes('--crawl-only')
/** The fault runs: every 10th request rate limited (429, or 503, with `Retry-After: 1`), or 2 % a bare 503. */
const FAULT_RUNS: { label: string; set: (faults: Faults) => void }[] = [
	{ label: '429 (Retry-After 1) every 10th', set: (f) => Object.assign(f, { rateLimitEvery: 10 }) },
	{
		label: '503 (Retry-After 1) every 10th',
		set: (f) => Object.assign(f, { rateLimitEvery: 10, rateLimitKind: 'secondary' }),
	},
	{ label: '2 % bare 503 (seeded)', set: (f) => Object.assign(f, { failRate5xx: 0.02 }) },
]

/** A site of PAGES pages under /docs/: a home page linking sections, each linking its pages; ETags on every page. */
function startSite(text: TextGenerator) {
	const pages = new Map<string, string>()
	const page = (title: string, body: string, links: string[]) =>
		`<!doctype html><html><head><title>${title}</title></head><body><nav>${links
			.map((href) => `<a href="${href}">${href}</a>`)
			.join(' ')}</nav><article><h1>${title}</h1>${body}</article></body></html>`
	const perSection = Math.ceil(PAGES / SECTIONS)
	pages.set(
		'/docs/',
		page(
			'Home',
			`<p>${text.prose(800)}</p>`,
			Array.from({ length: SECTIONS }, (_, s) => `/docs/s${s}/`),
		),
	)
	for (let s = 0; s < SECTIONS; s++) {
		const links = Array.from({ length: perSection - 1 }, (_, p) => `/docs/s${s}/p${p}.html`)
		pages.set(`/docs/s${s}/`, page(`Section ${s}`, `<p>${text.prose(800)}</p>`, links))
		for (const link of links) {
			const body = Array.from({ length: 4 }, () => `<p>${text.prose(700)}</p>`).join('')
			pages.set(link, page(`Page ${link}`, body, ['/docs/', `/docs/s${s}/`]))
		}
	}
	const etags = new Map([...pages].map(([path, html]) => [path, `"${Bun.hash(html).toString(16)}"`]))
	const state = { requests: 0 }
	const faults = faultLayer('website', random(29))
	// robots.txt answering 5xx would stop the whole crawl (RFC 9309): the faults are for pages.
	faults.faults.only = /^\/docs\//
	const server = Bun.serve({
		hostname: '127.0.0.1',
		port: 0,
		async fetch(request) {
			const path = new URL(request.url).pathname
			state.requests++
			const fault = await faults.before(request)
			if (fault) return fault
			if (path === '/robots.txt') return new Response('User-agent: *\nDisallow: /private/\n')
			const html = pages.get(path)
			if (!html) return new Response('not found', { status: 404 })
			const etag = etags.get(path)!
			if (request.headers.get('if-none-match') === etag) return new Response(null, { status: 304 })
			return new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8', etag } })
		},
	})
	return {
		origin: `http://127.0.0.1:${server.port}`,
		pages: pages.size,
		state,
		faults,
		stop: () => server.stop(true),
	}
}

function context(startUrl: string): SyncContext & { versions: Map<string, string> } {
	const versions = new Map<string, string>()
	return {
		versions,
		connectionId: 'bench',
		settings: {},
		accessToken: async () => '',
		withToken: (call) => call(''),
		credentials: {},
		metadata: { startUrl },
		documentLimit: 10_000,
		hasVersion: async (id, version) => versions.get(id) === version,
		logger: createLogger('error'),
		signal: new AbortController().signal,
	}
}

/** Runs one crawl, handing each event to `onEvent`; returns the counts and the cursor. */
async function crawlOnce(
	startUrl: string,
	delayMs: number,
	cursor: CursorValue | null,
	ctx = context(startUrl),
	onEvent: (event: SyncEvent) => void | Promise<void> = () => {},
) {
	const connector = webCrawler({ urlAllowlist: ['127.0.0.1'], delayMs })
	const counts = { upsert: 0, unchanged: 0, failure: 0 }
	let next = cursor
	const started = performance.now()
	for await (const event of connector.sync(ctx, cursor as never)) {
		if (event.type === 'upsert') {
			counts.upsert++
			ctx.versions.set(event.document.externalId, event.document.version ?? '')
		} else if (event.type === 'unchanged') counts.unchanged++
		else if (event.type === 'failure') counts.failure++
		else if (event.type === 'checkpoint') next = event.cursor
		await onEvent(event)
	}
	return { ...counts, seconds: (performance.now() - started) / 1000, cursor: next, ctx }
}

async function main() {
	heading('Web crawler')
	await printMachine(process.env.BENCH_DATABASE_URL)
	const site = startSite(new TextGenerator(5, await loadVocabulary()))
	const startUrl = `${site.origin}/docs/`
	try {
		const crawlRows: Cell[][] = []
		for (const delay of DELAYS_MS) {
			const first = await crawlOnce(startUrl, delay, null)
			const again = await crawlOnce(startUrl, delay, first.cursor, first.ctx)
			crawlRows.push([
				delay,
				first.upsert,
				fixed(first.seconds, 2),
				fixed(first.upsert / first.seconds),
				again.unchanged,
				fixed(again.seconds, 2),
				fixed(again.unchanged / again.seconds),
			])
		}
		printTable(
			`Crawl alone (${site.pages} pages, one request at a time)`,
			['delay ms', 'pages', 'first crawl s', 'pages/s', 'recrawl (304) pages', 'recrawl s', 'pages/s'],
			crawlRows,
		)

		const faultRows: Cell[][] = []
		for (const run of [{ label: 'none', set: () => {} }, ...FAULT_RUNS]) {
			site.faults.reset()
			site.faults.faults.only = /^\/docs\//
			run.set(site.faults.faults)
			site.state.requests = 0
			const crawled = await crawlOnce(startUrl, 0, null)
			const { rateLimited, failed5xx } = site.faults.counts
			faultRows.push([
				run.label,
				crawled.upsert,
				crawled.failure,
				fixed(crawled.seconds, 2),
				site.state.requests,
				rateLimited + failed5xx,
				fixed(site.state.requests / Math.max(1, crawled.upsert), 2),
			])
		}
		site.faults.reset()
		printTable(
			`Crawl with the fault layer (${site.pages} pages, delay 0)`,
			['faults', 'pages', 'failures', 'crawl s', 'requests', 'faults answered', 'requests/page'],
			faultRows,
		)
		if (CRAWL_ONLY) return

		const rows: Cell[][] = []
		for (const driver of driversToRun()) {
			const store = await createStore(driver)
			try {
				const { key } = await prepareStore(store)
				// Dynamic dreaming (the runtime's default) with a 1 s quiet interval, as bench/ingest.ts runs it.
				const server = await startServer(store, { MEMORY_DREAMING_QUIET_SECONDS: '1' })
				try {
					const client = new BenchClient(server.url, key)
					for (const delay of DELAYS_MS.slice(0, 2)) {
						const containerTag = `bench-crawl-${delay}`
						const pending: Promise<unknown>[] = []
						const started = performance.now()
						const result = await crawlOnce(startUrl, delay, null, context(startUrl), (event) => {
							if (event.type !== 'upsert') return
							const { document } = event
							pending.push(
								client.post('/v3/documents', {
									content: document.content,
									containerTag,
									customId: Bun.hash(document.externalId).toString(16),
									metadata: { ...document.metadata, url: document.url ?? '', title: document.title ?? '' },
								}),
							)
						})
						await Promise.all(pending)
						const documents = await waitUntilProcessed(client, containerTag, result.upsert, DRAIN_TIMEOUT_MS)
						const seconds = (performance.now() - started) / 1000
						const search = await client.post('/v3/search', { q: 'section page', containerTags: [containerTag] })
						rows.push([
							driver,
							delay,
							result.upsert,
							fixed(result.seconds, 2),
							fixed(seconds, 2),
							fixed(result.upsert / seconds),
							documents.filter((d) => d.status === 'failed').length,
							search.body?.results?.length ?? 0,
						])
					}
				} finally {
					await server.stop()
				}
			} finally {
				await store.dispose()
			}
		}
		printTable(
			'Crawl to searchable (each page POSTed to /v3/documents as it is yielded)',
			['store', 'delay ms', 'pages', 'crawl s', 'to searchable s', 'pages/s to searchable', 'failed', 'search hits'],
			rows,
		)
	} finally {
		site.stop()
	}
}

await main()
