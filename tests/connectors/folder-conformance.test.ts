import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { folderConnector } from '@memory-service/example-folder-connector'
import { connectorConformance } from '@memory-service/plugin-api/testkit'
import { syncSettled } from '../../testkit/connections.ts'

/** The example connector, from its package, through the test kit a third party imports by name. Its "provider" is a folder: items are Markdown files, and it has no HTTP to fail. */
const folder = mkdtempSync(join(tmpdir(), 'folder-conformance-'))

connectorConformance({
	name: 'folder (example)',
	connector: () => folderConnector({ root: folder, provider: 'folder' }),
	emulator: {
		start: () => {},
		stop: () => rmSync(folder, { recursive: true, force: true }),
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
	async connect(t, body, key) {
		const created = await t.json('POST', '/v3/connections/folder', body, key)
		return (await syncSettled(t, created.body.id, '', key)).id
	},
	externalId: (id) => `${id}.md`,
	oauth: false,
})
