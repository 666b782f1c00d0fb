import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { sampleDocx, samplePdf } from '../../testkit/sample-files.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

const ARTICLE = `<!doctype html><html><head><title>Tide pools | Shore Guide</title></head><body>
<nav><a href="/">Home</a> <a href="/shop">Shop our merchandise</a></nav>
<article><h1>Life in tide pools</h1>
<p>Sea anemones close up when the tide goes out, holding water inside to survive until it returns. ${'Tide pools are small worlds that change twice a day with the sea. '.repeat(4)}</p>
<h2>Who lives there</h2>
<p>Hermit crabs trade shells as they grow, and periwinkles graze the algae off the rocks. ${'Each creature has its own way to cope with heat, waves and hungry gulls. '.repeat(4)}</p>
</article><footer>Newsletter sign-up</footer></body></html>`

/** A web server on loopback, reached through the name the service's allow-list names (localhost). */
describeEachDriver('URL and structured content ingestion', (driver) => {
	let t: TestService
	let server: ReturnType<typeof Bun.serve>
	let flakyCalls = 0
	let pdf: Uint8Array
	let docx: Uint8Array
	const at = (path: string) => `http://localhost:${server.port}${path}`

	beforeAll(async () => {
		pdf = await samplePdf('Harbour rules', ['Boats must anchor east of the red buoy.'])
		docx = await sampleDocx('Crew roster', ['Marta steers the ferry on Tuesdays.'])
		server = Bun.serve({
			port: 0,
			hostname: '127.0.0.1',
			fetch(request) {
				switch (new URL(request.url).pathname) {
					case '/tide-pools':
						return new Response(ARTICLE, { headers: { 'content-type': 'text/html; charset=utf-8' } })
					case '/files/rules':
						// Labelled loosely, as servers do: the bytes say PDF.
						return new Response(pdf, { headers: { 'content-type': 'application/octet-stream' } })
					case '/files/roster.docx':
						return new Response(docx)
					case '/flaky':
						flakyCalls++
						return flakyCalls === 1
							? new Response('try later', { status: 503 })
							: new Response('The ferry leaves at nine.', { headers: { 'content-type': 'text/plain' } })
					case '/archive.zip':
						return new Response(new Uint8Array([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)]))
					default:
						return new Response('not here', { status: 404 })
				}
			},
		})
		t = await startTestService(driver, { env: { MEMORY_URL_ALLOWLIST: 'localhost' }, extractor: null })
	}, 60_000)
	afterAll(async () => {
		await t.stop()
		server.stop(true)
	})

	const add = async (body: Record<string, unknown>) => {
		const response = await t.json('POST', '/v3/documents', body)
		expect(response.status).toBe(200)
		return response.body.id as string
	}

	it('turns a web page from an allow-listed host into its readable text, as a webpage', async () => {
		const url = at('/tide-pools')
		const id = await add({ content: url, containerTag: 'url_web' })
		const done = await t.waitForStatus(id)
		expect(done).toMatchObject({
			status: 'done',
			type: 'webpage',
			url,
			source: 'url',
			title: 'Tide pools | Shore Guide',
		})
		const chunks = (await t.json('GET', `/v3/documents/${id}/chunks`)).body.chunks.map(
			(c: { content: string }) => c.content,
		)
		const text = chunks.join('\n')
		expect(text).toContain('Hermit crabs trade shells')
		expect(text).not.toContain('Shop our merchandise')
		expect(text).not.toContain('Newsletter')
		const hits = await t.json('POST', '/v3/search', { q: 'why do anemones close', containerTags: ['url_web'] })
		expect(hits.body.results[0].documentId).toBe(id)
	})

	it('reads a PDF and a DOCX behind URLs through the file path', async () => {
		const pdfId = await add({ content: at('/files/rules'), containerTag: 'url_files' })
		const docxId = await add({ content: at('/files/roster.docx'), containerTag: 'url_files' })
		expect(await t.waitForStatus(pdfId)).toMatchObject({ status: 'done', type: 'pdf', title: 'Harbour rules' })
		expect(await t.waitForStatus(docxId)).toMatchObject({ status: 'done', type: 'google_doc', title: 'Crew roster' })
		const hits = await t.json('POST', '/v3/search', { q: 'who steers the ferry', containerTags: ['url_files'] })
		expect(hits.body.results[0].documentId).toBe(docxId)
	})

	it('refuses a loopback address the allow-list does not name, with the reason', async () => {
		const id = await add({ content: `http://127.0.0.1:${server.port}/tide-pools`, containerTag: 'url_refused' })
		const failed = await t.waitForStatus(id)
		expect(failed.status).toBe('failed')
		expect(failed.error).toContain('127.0.0.1 is a loopback address')
		const metadata = await add({ content: 'http://169.254.169.254/latest/meta-data/', containerTag: 'url_refused' })
		expect((await t.waitForStatus(metadata)).error).toContain('cloud-metadata')
	})

	it('fails permanently on a 404 or an unsupported type, naming it', async () => {
		const missing = await t.waitForStatus(await add({ content: at('/nothing'), containerTag: 'url_bad' }))
		expect(missing.status).toBe('failed')
		expect(missing.error).toContain('HTTP 404')
		expect(missing.stages.filter((s: { outcome: string }) => s.outcome === 'failed')).toHaveLength(1)
		const zip = await t.waitForStatus(await add({ content: at('/archive.zip'), containerTag: 'url_bad' }))
		expect(zip.status).toBe('failed')
		expect(zip.error).toContain('application/zip')
	})

	it('retries a transient failure with backoff and then succeeds', async () => {
		const id = await add({ content: at('/flaky'), containerTag: 'url_flaky' })
		const done = await t.waitForStatus(id, ['done', 'failed'], undefined, 30_000)
		expect(done.status).toBe('done')
		expect(flakyCalls).toBe(2)
		expect(done.type).toBe('text')
	}, 40_000)

	it('indexes a JSON object as readable text and maps the fields the user names into filterable metadata', async () => {
		const order = {
			title: 'Order 1042',
			customer: { name: 'Ada Lovelace', city: 'London' },
			items: [{ sku: 'LOOM-7', qty: 2 }],
			priority: 3,
		}
		const asText = await add({
			content: JSON.stringify(order),
			containerTag: 'url_json',
			metadataFields: ['customer.city', 'priority', 'items.0.sku'],
		})
		const asValue = await add({
			content: [{ role: 'user', content: 'My cat is called Miso.' }],
			containerTag: 'url_json',
		})
		const done = await t.waitForStatus(asText)
		expect(done).toMatchObject({
			status: 'done',
			title: 'Order 1042',
			metadata: { 'customer.city': 'London', priority: 3, 'items.0.sku': 'LOOM-7' },
		})
		const chunks = (await t.json('GET', `/v3/documents/${asText}/chunks`)).body.chunks
		expect(chunks[0].content).toContain('customer:\n  name: Ada Lovelace')
		const chat = await t.waitForStatus(asValue)
		expect(chat.status).toBe('done')
		expect((await t.json('GET', `/v3/documents/${asValue}/chunks`)).body.chunks[0].content).toBe(
			'user: My cat is called Miso.',
		)
		const filtered = await t.json('POST', '/v3/search', {
			q: 'order for Ada',
			containerTags: ['url_json'],
			filters: { AND: [{ key: 'priority', value: '2', filterType: 'numeric', numericOperator: '>' }] },
		})
		expect(filtered.body.results.map((r: { documentId: string }) => r.documentId)).toEqual([asText])
		const notStructured = await t.json('POST', '/v3/documents', { content: 'plain', metadataFields: ['a'] })
		expect(notStructured.status).toBe(400)
		expect(notStructured.body.details).toContain('metadataFields')
	})
})
