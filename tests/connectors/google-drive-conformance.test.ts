import { googleDrive } from '../../connectors/google-drive/index.ts'
import { authorizeThroughEmulator, syncSettled } from '../../testkit/connections.ts'
import { connectorConformance } from '../../testkit/connector-conformance/index.ts'
import { type GoogleEmulator, startGoogleEmulator } from '../../testkit/emulators/google.ts'
import { addDriveRoutes, type DriveEmulator } from '../../testkit/emulators/google-drive.ts'

let google: GoogleEmulator
let drive: DriveEmulator
/** The suite's item names and the Drive file ids of the Docs holding them. */
const fileIds = new Map<string, string>()

connectorConformance({
	name: 'google-drive',
	connector: () => googleDrive({ accountsUrl: google.url, oauthUrl: google.url, apiUrl: google.url }),
	emulator: {
		start() {
			google = startGoogleEmulator()
			drive = addDriveRoutes(google)
		},
		stop: () => google.stop(),
		seed(items) {
			for (const [name, content] of Object.entries(items)) {
				const id = fileIds.get(name)
				if (id && drive.files.has(id)) drive.update(id, { exports: { 'text/markdown': content } })
				else fileIds.set(name, drive.doc(name, content).id)
			}
		},
		remove(names) {
			for (const name of names) drive.remove(fileIds.get(name)!)
		},
		http: true,
		faults: () => google.faults,
		itemReads: /^\/drive\/v3\/files\/[^/]+\/export$/,
		listing: /^\/drive\/v3\/files$/,
		refreshes: () => google.log.filter((line) => line === 'POST /token refresh').length,
	},
	env: () => ({ GOOGLE_CLIENT_ID: google.clientId, GOOGLE_CLIENT_SECRET: google.clientSecret }),
	server: () => ({
		MEMORY_CONNECTORS: 'google-drive',
		GOOGLE_ACCOUNTS_URL: google.url,
		GOOGLE_OAUTH_URL: google.url,
		GOOGLE_API_URL: google.url,
	}),
	async connect(t, body, key) {
		const { created } = await authorizeThroughEmulator(t, 'google-drive', body, key)
		return (await syncSettled(t, created.body.id as string, '', key)).id
	},
	externalId: (name) => fileIds.get(name)!,
	oauth: true,
})
