import { granola } from '../../connectors/granola/index.ts'
import { syncSettled } from '../../testkit/connections.ts'
import { connectorConformance } from '../../testkit/connector-conformance/index.ts'
import { type GranolaEmulator, startGranolaEmulator } from '../../testkit/emulators/granola.ts'

let emulator: GranolaEmulator

connectorConformance({
	name: 'granola',
	connector: () => granola({ apiUrl: emulator.url, minRequestIntervalMs: 0 }),
	emulator: {
		start() {
			emulator = startGranolaEmulator()
		},
		stop: () => emulator.stop(),
		seed(items) {
			for (const [id, content] of Object.entries(items)) {
				emulator.put({ id: `not_${id}`, title: id, summary_markdown: content })
			}
		},
		remove(ids) {
			for (const id of ids) emulator.remove(`not_${id}`)
		},
		http: true,
		deletionConfirmations: 2,
		faults: () => emulator.faults,
		itemReads: /^\/v1\/notes\/not_/,
		listing: /^\/v1\/notes$/,
	},
	server: () => ({ MEMORY_CONNECTORS: 'granola', GRANOLA_API_URL: emulator.url }),
	async connect(t, body, key) {
		const created = await t.json(
			'POST',
			'/v3/connections/granola',
			{ ...body, metadata: { apiKey: emulator.apiKey } },
			key,
		)
		return (await syncSettled(t, created.body.id, '', key)).id
	},
	externalId: (id) => `not_${id}`,
	oauth: false,
})
