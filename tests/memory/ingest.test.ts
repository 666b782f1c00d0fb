import { afterAll, beforeAll, expect, it } from 'bun:test'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { sampleDocx, samplePdf } from '../../testkit/sample-files.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'
import { upload } from '../../testkit/upload.ts'

const ARTICLE = `<html><head><title>Harbor notes</title></head><body><nav>Home | About</nav><article><h1>Harbor notes</h1>
<p>Maria moved to Lisbon in 2021 and works as a marine biologist at the aquarium.</p></article></body></html>`

/** Issue 5's "done": each kind of content becomes searchable chunks and memories through the default extractor. */
describeEachDriver('ingested files, pages and JSON become memories', (driver) => {
	let t: TestService
	let page: ReturnType<typeof Bun.serve>
	beforeAll(async () => {
		t = await startTestService(driver, { env: { MEMORY_URL_ALLOWLIST: '127.0.0.1' } })
		page = Bun.serve({
			port: 0,
			hostname: '127.0.0.1',
			fetch: () => new Response(ARTICLE, { headers: { 'content-type': 'text/html; charset=utf-8' } }),
		})
	}, 60_000)
	afterAll(async () => {
		page.stop(true)
		await t.stop()
	})

	const memoriesOf = async (id: string) => {
		const document = await t.waitForStatus(id, ['done', 'failed'], undefined, 60_000)
		expect(document.status).toBe('done')
		return { type: document.type, memories: (document.memories ?? []).map((m: { memory: string }) => m.memory) }
	}
	const fields = { containerTag: 'kinds', dreaming: 'instant' }

	it('forms memories from a PDF and a DOCX upload', async () => {
		const pdf = await upload(
			t,
			{ bytes: await samplePdf('Log', ['Alex lives in Boston and works as a nurse.']), name: 'log.pdf' },
			fields,
		)
		expect(await memoriesOf(pdf.body.id)).toEqual({
			type: 'pdf',
			memories: [expect.stringContaining('Alex lives in Boston')],
		})
		const docx = await upload(
			t,
			{ bytes: await sampleDocx('Team', ['Priya prefers green tea over coffee.']), name: 'team.docx' },
			fields,
		)
		const formed = await memoriesOf(docx.body.id)
		expect(formed.memories).toContain('Priya prefers green tea over coffee')
	})

	it('forms memories from an allow-listed web page and from JSON content', async () => {
		const url = await t.json('POST', '/v3/documents', { content: `http://127.0.0.1:${page.port}/notes`, ...fields })
		const fromPage = await memoriesOf(url.body.id)
		expect(fromPage.type).toBe('webpage')
		expect(fromPage.memories.join(' ')).toContain('Maria moved to Lisbon')
		const json = await t.json('POST', '/v3/documents', {
			content: JSON.stringify({ person: 'Omar', city: 'Cairo', job: 'architect' }),
			...fields,
		})
		const fromJson = await memoriesOf(json.body.id)
		expect(fromJson.memories.join(' ')).toContain('Omar')
		const search = await t.json('POST', '/v4/search', {
			q: 'Maria Lisbon marine biologist',
			containerTag: 'kinds',
			threshold: 0,
		})
		expect(search.body.results.some((r: { memory?: string }) => r.memory?.includes('Maria moved to Lisbon'))).toBe(true)
	})
})
