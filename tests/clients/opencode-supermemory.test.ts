import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ClientHarness, startClientHarness } from '../../testkit/client.ts'

const NOTE = [
	'# Build notes',
	'This project uses Bun, not Node.js; run tests with `bun test`.',
	'The API server lives in server/main.ts and listens on port 8787.',
	'Migrations are append only: a released one is never edited.',
	'Releases are tagged from main after the nightly job passes, and the changelog is written from the merged pull requests of the week.',
].join('\n')
const SUMMARY =
	'This project uses Bun, not Node.js; run tests with `bun test`. The API server lives in server/main.ts and listens on port 8787. Migrations are append only: a released one is never edited.'

type Tool = { execute(args: Record<string, unknown>, context: unknown): Promise<string> }

/**
 * opencode-supermemory, OpenCode's memory plugin, loaded as OpenCode loads it (its config comes from the environment
 * and the home directory, read when the module loads) and its `supermemory` tool called as the agent calls it.
 */
describe('opencode-supermemory against the real server', () => {
	let harness: ClientHarness
	let tool: Tool
	const home = mkdtempSync(join(tmpdir(), 'opencode-home-'))
	const project = mkdtempSync(join(tmpdir(), 'opencode-project-'))
	const ownHome = process.env.HOME
	beforeAll(async () => {
		harness = await startClientHarness('pglite', { extractor: null })
		process.env.HOME = home
		process.env.SUPERMEMORY_API_KEY = harness.t.key
		process.env.SUPERMEMORY_API_URL = harness.client.baseURL
		process.env.SUPERMEMORY_REPO_TAG = 'opencode_repo'
		const { SupermemoryPlugin } = await import('opencode-supermemory')
		const hooks = (await SupermemoryPlugin({
			directory: project,
			client: { provider: { list: async () => ({ data: { all: [] } }) } },
		} as never)) as unknown as { tool: { supermemory: Tool } }
		tool = hooks.tool.supermemory
	}, 60_000)
	afterAll(async () => {
		await harness.stop()
		if (ownHome === undefined) delete process.env.HOME
		else process.env.HOME = ownHome
		for (const dir of [home, project]) rmSync(dir, { recursive: true, force: true })
	})

	const call = async (args: Record<string, unknown>) => JSON.parse(await tool.execute(args, {}))

	it("lists an added note with the document's summary, which GET, list and both searches also give", async () => {
		const added = await call({ mode: 'add', content: NOTE, type: 'architecture' })
		expect(added).toMatchObject({ success: true })
		const document = await harness.waitDone(added.id)
		expect(document.summary).toBe(SUMMARY)

		const listed = await call({ mode: 'list' })
		expect(listed.memories).toEqual([expect.objectContaining({ id: added.id, content: SUMMARY })])

		const list = await harness.t.json('POST', '/v3/documents/list', {
			containerTags: ['opencode_repo'],
			includeSummary: true,
		})
		expect(list.body.memories[0].summary).toBe(SUMMARY)
		const v3 = await harness.t.json('POST', '/v3/search', {
			q: 'which port does the API server listen on',
			containerTags: ['opencode_repo'],
			includeSummary: true,
		})
		expect(v3.body.results[0].summary).toBe(SUMMARY)
		const v4 = await harness.t.json('POST', '/v4/search', {
			q: 'which port does the API server listen on',
			containerTag: 'opencode_repo',
			searchMode: 'hybrid',
			include: { summaries: true },
		})
		const withDocuments = v4.body.results.find((result: { documents?: unknown[] }) => result.documents)
		expect(withDocuments?.documents[0].summary).toBe(SUMMARY)
	})
})
