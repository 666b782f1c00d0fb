import { gmail } from '../../connectors/gmail/index.ts'
import { authorizeThroughEmulator, syncSettled } from '../../testkit/connections.ts'
import { connectorConformance } from '../../testkit/connector-conformance/index.ts'
import { type GmailEmulator, startGmailEmulator } from '../../testkit/emulators/google-gmail.ts'

let emulator: GmailEmulator
/** The suite's item names and the Gmail threads holding them, with their messages. */
const threads = new Map<string, { threadId: string; messages: string[] }>()

connectorConformance({
	name: 'gmail',
	connector: () => gmail({ accountsUrl: emulator.url, oauthUrl: emulator.url, apiUrl: emulator.url }),
	emulator: {
		async start() {
			emulator = await startGmailEmulator()
		},
		stop: () => emulator.stop(),
		seed(items) {
			for (const [name, text] of Object.entries(items)) {
				const thread = threads.get(name)
				// A changed item is a reply in its thread (Gmail messages never change).
				if (thread?.messages.length) {
					thread.messages.push(emulator.deliver({ subject: `Re: ${name}`, text }, { threadId: thread.threadId }).id)
					continue
				}
				const sent = emulator.deliver({ subject: name, text })
				threads.set(name, { threadId: sent.threadId, messages: [sent.id] })
			}
		},
		remove(names) {
			for (const name of names) {
				const thread = threads.get(name)!
				for (const id of thread.messages) emulator.remove(id)
				thread.messages = []
			}
		},
		http: true,
		faults: () => emulator.google.faults,
		itemReads: /^\/gmail\/v1\/users\/me\/messages\//,
		listing: /^\/gmail\/v1\/users\/me\/threads$/,
		refreshes: () => emulator.google.log.filter((line) => line === 'POST /token refresh').length,
	},
	env: () => ({ GOOGLE_CLIENT_ID: emulator.google.clientId, GOOGLE_CLIENT_SECRET: emulator.google.clientSecret }),
	server: () => ({
		MEMORY_CONNECTORS: 'gmail',
		GOOGLE_ACCOUNTS_URL: emulator.url,
		GOOGLE_OAUTH_URL: emulator.url,
		GOOGLE_API_URL: emulator.url,
	}),
	async connect(t, body, key) {
		const { created } = await authorizeThroughEmulator(t, 'gmail', body, key)
		return (await syncSettled(t, created.body.id as string, '', key)).id
	},
	externalId: (name) => threads.get(name)!.threadId,
	oauth: true,
})
