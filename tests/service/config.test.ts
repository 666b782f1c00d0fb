import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../server/load-config.ts'
import { startTestService } from '../../testkit/service.ts'

const root = join(import.meta.dir, '..', '..')

const scratchDirs: string[] = []
afterAll(() => {
	for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true })
})

/** A fresh directory for one test's files, removed after the file's tests. */
function scratchDir(): string {
	const dir = mkdtempSync(join(tmpdir(), 'memory-config-'))
	scratchDirs.push(dir)
	return dir
}

/** Runs a snippet in a fresh Bun process, so the module registry shows exactly what the config loaded. */
async function inFreshProcess(code: string, env: Record<string, string>) {
	const dir = scratchDir()
	const file = join(dir, 'probe.ts')
	writeFileSync(file, code.replaceAll('ROOT', root))
	const proc = Bun.spawn([process.execPath, file], {
		cwd: dir,
		env: { PATH: process.env.PATH ?? '', ...env },
		stdout: 'pipe',
		stderr: 'pipe',
	})
	const [out, err] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text()]
	await proc.exited
	if (proc.exitCode !== 0) throw new Error(err)
	return JSON.parse(out.trim().split('\n').at(-1)!)
}

const PROBE = `
import { loadConfig } from 'ROOT/server/load-config.ts'
const config = await loadConfig()
const loaded = Object.keys(require.cache)
console.log(JSON.stringify({
	plugins: config.plugins.map((p) => p.kind + ':' + p.name),
	openaiLoaded: loaded.some((k) => k.includes('@ai-sdk/openai') || k.includes('embedder-openai')),
	octokitLoaded: loaded.some((k) => k.includes('@octokit/')),
	googleapisLoaded: loaded.some((k) => k.includes('node_modules/googleapis')),
	notionClientLoaded: loaded.some((k) => k.includes('@notionhq/')),
	graphLoaded: loaded.some((k) => k.includes('@microsoft/microsoft-graph-client')),
	postgresClientLoaded: loaded.some((k) => k.includes('node_modules/postgres/')),
	source: config.source,
}))
`

describe('configuration', () => {
	it('builds the embedded default from an empty environment without loading unused plugins', async () => {
		const result = await inFreshProcess(PROBE, {})
		expect(result.plugins).toEqual([
			'storage:storage-postgres',
			'embedder:embedder-local',
			'extractor:extractor-rules',
			'connector:github',
			'connector:gmail',
			'connector:google-drive',
			'connector:granola',
			'connector:notion',
			'connector:onedrive',
			'connector:web-crawler',
		])
		expect(result.openaiLoaded).toBe(false)
		// The GitHub connector is declared, but its SDK loads only when it first talks to GitHub.
		expect(result.octokitLoaded).toBe(false)
		expect(result.googleapisLoaded).toBe(false)
		expect(result.notionClientLoaded).toBe(false)
		expect(result.graphLoaded).toBe(false)
		expect(result.source).toBe('environment')
	})

	it('selects the OpenAI embedder from OPENAI_BASE_URL and loads its SDK only then', async () => {
		const result = await inFreshProcess(PROBE, { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'k' })
		expect(result.plugins).toEqual([
			'storage:storage-postgres',
			'embedder:embedder-openai',
			'extractor:extractor-rules',
			'connector:github',
			'connector:gmail',
			'connector:google-drive',
			'connector:granola',
			'connector:notion',
			'connector:onedrive',
			'connector:web-crawler',
		])
		expect(result.openaiLoaded).toBe(true)
	})

	it('selects the LLM extractor (with the rules extractor as its fallback) or none from MEMORY_EXTRACTOR', async () => {
		const llm = await inFreshProcess(PROBE, {
			MEMORY_EXTRACTOR: 'llm',
			MEMORY_EMBEDDER: 'local',
			OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
			MEMORY_LLM_MODEL: 'tiny',
		})
		expect(llm.plugins).toEqual([
			'storage:storage-postgres',
			'embedder:embedder-local',
			'extractor:extractor-llm',
			'connector:github',
			'connector:gmail',
			'connector:google-drive',
			'connector:granola',
			'connector:notion',
			'connector:onedrive',
			'connector:web-crawler',
		])
		const none = await inFreshProcess(PROBE, { MEMORY_EXTRACTOR: 'none', MEMORY_CONNECTORS: 'none' })
		expect(none.plugins).toEqual(['storage:storage-postgres', 'embedder:embedder-local'])
		await expect(loadConfig({ MEMORY_EXTRACTOR: 'magic' })).rejects.toThrow(
			'MEMORY_EXTRACTOR must be "rules", "llm" or "none"',
		)
		await expect(
			loadConfig({ MEMORY_EXTRACTOR: 'llm', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', MEMORY_LLM_CONCURRENCY: '0' }),
		).rejects.toThrow('MEMORY_LLM_CONCURRENCY must be an integer >= 1')
	})

	it('refuses a document timeout the job queue cannot keep, and starts with the longest it can', async () => {
		await expect(loadConfig({ MEMORY_DOCUMENT_TIMEOUT_SECONDS: '100000' })).rejects.toThrow(
			'MEMORY_DOCUMENT_TIMEOUT_SECONDS must be an integer from 1 to 43170',
		)
		const t = await startTestService('pglite', { env: { MEMORY_DOCUMENT_TIMEOUT_SECONDS: '43170' } })
		try {
			expect((await t.request('GET', '/health', { key: null })).status).toBe(200)
		} finally {
			await t.stop()
		}
	}, 120_000)

	it('reads a typed memory.config.ts when present', async () => {
		const dir = scratchDir()
		writeFileSync(
			join(dir, 'memory.config.ts'),
			`import { defineConfig } from '${root}/core/index.ts'\nexport default defineConfig({ port: 9999, workerConcurrency: 7 })\n`,
		)
		const config = await loadConfig({ MEMORY_CONFIG: join(dir, 'memory.config.ts') })
		expect(config.settings.port).toBe(9999)
		expect(config.settings.workerConcurrency).toBe(7)
		expect(config.plugins.map((p) => p.name)).toEqual([
			'storage-postgres',
			'embedder-local',
			'extractor-rules',
			'github',
			'gmail',
			'google-drive',
			'granola',
			'notion',
			'onedrive',
			'web-crawler',
		])
	})

	it('hands a plugins function the defaults, so one line adds a connector and keeps memory formation', async () => {
		const dir = scratchDir()
		writeFileSync(
			join(dir, 'memory.config.ts'),
			[
				`import { defineConfig } from '${root}/core/index.ts'`,
				`import { folderConnector } from '${root}/examples/folder-connector/index.ts'`,
				`export default defineConfig({ plugins: (settings, defaults) => [...defaults, folderConnector({ root: '${dir}' })] })`,
			].join('\n'),
		)
		const config = await loadConfig({ MEMORY_CONFIG: join(dir, 'memory.config.ts') })
		const names = config.plugins.map((p) => `${p.kind}:${p.name}`)
		expect(names.slice(0, 3)).toEqual([
			'storage:storage-postgres',
			'embedder:embedder-local',
			'extractor:extractor-rules',
		])
		expect(names.at(-1)).toBe('connector:folder')
		expect(names).toContain('connector:github')
	})

	it('replaces the defaults whole when plugins is a list', async () => {
		const dir = scratchDir()
		writeFileSync(
			join(dir, 'memory.config.ts'),
			[
				`import { defineConfig, embeddedDatabaseDir } from '${root}/core/index.ts'`,
				`import { storagePostgres } from '${root}/plugins/storage-postgres/index.ts'`,
				`import { embedderLocal } from '${root}/plugins/embedder-local/index.ts'`,
				`export default defineConfig({ plugins: [storagePostgres({ dataDir: embeddedDatabaseDir('${dir}') }), embedderLocal()] })`,
			].join('\n'),
		)
		const config = await loadConfig({ MEMORY_CONFIG: join(dir, 'memory.config.ts') })
		expect(config.plugins.map((p) => p.name)).toEqual(['storage-postgres', 'embedder-local'])
	})

	it('refuses malformed settings with a clear message', async () => {
		await expect(loadConfig({ PORT: 'eighty' })).rejects.toThrow('PORT must be an integer')
		await expect(loadConfig({ MEMORY_EMBEDDER: 'magic' })).rejects.toThrow(
			'MEMORY_EMBEDDER must be "local" or "openai"',
		)
		await expect(loadConfig({ MEMORY_CONFIG: '/nowhere/memory.config.ts' })).rejects.toThrow('does not exist')
		await expect(loadConfig({ MEMORY_CONNECTORS: 'github,dropbox' })).rejects.toThrow(
			'MEMORY_CONNECTORS names unknown connectors: dropbox (built in: github, gmail, google-drive, granola, notion, onedrive, web-crawler)',
		)
	})
})
