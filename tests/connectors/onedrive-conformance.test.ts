import { onedrive } from '../../connectors/onedrive/index.ts'
import { authorizeThroughEmulator, syncSettled } from '../../testkit/connections.ts'
import { connectorConformance } from '../../testkit/connector-conformance/index.ts'
import { type GraphEmulator, startGraphEmulator } from '../../testkit/emulators/graph.ts'

let emulator: GraphEmulator
/** The suite's item names -> drive item ids (one drive, consented to by every connection). */
const ids = new Map<string, string>()

connectorConformance({
	name: 'onedrive',
	connector: () =>
		onedrive({
			graphUrl: emulator.url,
			loginUrl: emulator.url,
			retry: { delaySeconds: 1, maxRetries: 3 },
			changeNotifications: false,
		}),
	emulator: {
		start() {
			// Pages of ten, so the kill -9 case interrupts a listing between its pages.
			emulator = startGraphEmulator({ pageSize: 10 })
			emulator.consentAs('conformance')
		},
		stop: () => emulator.stop(),
		seed(items) {
			const drive = emulator.drive('conformance')
			for (const [name, content] of Object.entries(items)) {
				const known = ids.get(name)
				if (known) drive.updateFile(known, content)
				else ids.set(name, drive.addFile(`${name}.txt`, content, drive.rootId, 'text/plain'))
			}
		},
		remove(names) {
			for (const name of names) emulator.drive('conformance').remove(ids.get(name)!)
		},
		http: true,
		faults: () => emulator.faults,
		itemReads: /\/content$|^\/download\//,
		listing: /\/delta/,
		refreshes: () => emulator.log.filter((line) => line === 'POST refresh').length,
		fullListings: () => emulator.log.filter((line) => line === 'GET delta full').length,
	},
	env: () => ({ MICROSOFT_CLIENT_ID: emulator.clientId, MICROSOFT_CLIENT_SECRET: emulator.clientSecret }),
	server: () => ({
		MEMORY_CONNECTORS: 'onedrive',
		MICROSOFT_GRAPH_URL: emulator.url,
		MICROSOFT_LOGIN_URL: emulator.url,
		MICROSOFT_ONEDRIVE_NOTIFICATIONS: 'false',
	}),
	async connect(t, body, key) {
		emulator.consentAs('conformance')
		const { created } = await authorizeThroughEmulator(t, 'onedrive', body, key)
		return (await syncSettled(t, created.body.id, '', key)).id
	},
	externalId: (name) => ids.get(name)!,
	oauth: true,
})
