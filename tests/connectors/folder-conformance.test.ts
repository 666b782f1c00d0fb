import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { folderConnector } from '@memory-service/example-folder-connector'
import { connectorConformance } from '@memory-service/plugin-api/testkit'
import { syncSettled } from '../../testkit/connections.ts'

/** The example connector, from its package, through the test kit a third party imports by name. Its "provider" is a folder: items are Markdown files, and it has no HTTP to fail. */
const folder = mkdtempSync(join(tmpdir(), 'folder-conformance-'))
// Inside the checkout, so the server's config resolves the package by name from its node_modules.
const root = join(import.meta.dir, '..', '..')
mkdirSync(join(root, '.cache'), { recursive: true })
const configDir = mkdtempSync(join(root, '.cache', 'folder-conformance-'))

connectorConformance({
	name: 'folder (example)',
	connector: () => folderConnector({ root: folder, provider: 'folder' }),
	emulator: {
		start: () => {},
		stop() {
			rmSync(folder, { recursive: true, force: true })
			rmSync(configDir, { recursive: true, force: true })
		},
		seed(items) {
			for (const [id, content] of Object.entries(items))
				writeFileSync(join(folder, `${id}.md`), `# ${id}\n\n${content}`)
		},
		remove(ids) {
			for (const id of ids) unlinkSync(join(folder, `${id}.md`))
		},
		http: false,
		faults: () => null,
		itemReads: /$^/,
		listing: /$^/,
	},
	// The server loads the package with one config line, as a user does; a local disk reads too fast to be killed in
	// the middle of a sync, so that server's connector takes a tenth of a second per file.
	server() {
		const config = join(configDir, 'memory.config.ts')
		writeFileSync(
			config,
			`import { folderConnector } from '@memory-service/example-folder-connector'
const folder = folderConnector({ root: ${JSON.stringify(folder)}, provider: 'folder' })
const sync = folder.sync
folder.sync = async function* (ctx, cursor) {
	for await (const event of sync(ctx, cursor)) {
		if (event.type === 'upsert') await Bun.sleep(100)
		yield event
	}
}
export default { plugins: (settings, defaults) => [...defaults, folder] }
`,
		)
		return { MEMORY_CONFIG: config, MEMORY_CONNECTORS: 'none' }
	},
	async connect(t, body, key) {
		const created = await t.json('POST', '/v3/connections/folder', body, key)
		return (await syncSettled(t, created.body.id, '', key)).id
	},
	externalId: (id) => `${id}.md`,
	oauth: false,
})
