import { notion } from '../../connectors/notion/index.ts'
import { authorizeThroughEmulator, syncSettled } from '../../testkit/connections.ts'
import { connectorConformance } from '../../testkit/connector-conformance/index.ts'
import { block, type NotionEmulator, startNotionEmulator } from '../../testkit/emulators/notion.ts'

let emulator: NotionEmulator
/** The suite's item names and the ids of the Notion pages holding them. */
const pageIds = new Map<string, string>()

connectorConformance({
	name: 'notion',
	// Waits of a few seconds per request, so a burst of 5xx fails its item within the suite's time.
	connector: () => notion({ apiUrl: emulator.url, requestsPerSecond: 0, maxRateLimitWaitSeconds: 5 }),
	emulator: {
		start() {
			emulator = startNotionEmulator()
		},
		stop: () => emulator.stop(),
		// A page missing from a whole listing is deleted once it answered 404 on two runs in a row.
		deletionConfirmations: 2,
		seed(items) {
			for (const [name, text] of Object.entries(items)) {
				const id = pageIds.get(name)
				if (id) emulator.editPage(id, { blocks: [block.paragraph(text)] })
				else pageIds.set(name, emulator.addPage({ title: name, blocks: [block.paragraph(text)] }))
			}
		},
		// The user stops sharing the page: it answers 404, which Notion's search alone never proves.
		remove(names) {
			for (const name of names) emulator.unshare(pageIds.get(name)!)
		},
		http: true,
		faults: () => emulator.faults,
		itemReads: /^\/v1\/blocks\/[^/]+\/children$/,
		listing: /^\/v1\/search$/,
		refreshes: () => emulator.calls(/^\/v1\/oauth\/token refresh$/).length,
	},
	env: () => ({ NOTION_CLIENT_ID: emulator.clientId, NOTION_CLIENT_SECRET: emulator.clientSecret }),
	server: () => ({ MEMORY_CONNECTORS: 'notion', NOTION_API_URL: emulator.url, NOTION_REQUESTS_PER_SECOND: '0' }),
	async connect(t, body, key) {
		const { created } = await authorizeThroughEmulator(t, 'notion', body, key)
		return (await syncSettled(t, created.body.id as string, '', key)).id
	},
	externalId: (name) => pageIds.get(name)!,
	oauth: true,
})
