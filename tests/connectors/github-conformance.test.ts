import { github } from '../../connectors/github/index.ts'
import { authorizeThroughEmulator, syncSettled } from '../../testkit/connections.ts'
import { connectorConformance } from '../../testkit/connector-conformance/index.ts'
import { type GithubEmulator, startGithubEmulator } from '../../testkit/emulators/github.ts'

const REPO = 'octo/conformance'
let emulator: GithubEmulator
let created = false

connectorConformance({
	name: 'github',
	connector: () => github({ apiUrl: emulator.url, webUrl: emulator.url }),
	emulator: {
		start() {
			// Expiring tokens with refresh tokens (a GitHub App's user tokens), so a 401 can be refreshed.
			emulator = startGithubEmulator({ tokenLifetimeSeconds: 8 * 3600 })
		},
		stop: () => emulator.stop(),
		seed(items) {
			const files = Object.fromEntries(
				Object.entries(items).map(([id, content]) => [`${id}.md`, `# ${id}\n\n${content}`]),
			)
			if (created) emulator.commit(REPO, files)
			else emulator.createRepo(REPO, files)
			created = true
		},
		remove(ids) {
			emulator.commit(REPO, Object.fromEntries(ids.map((id) => [`${id}.md`, null])))
		},
		http: true,
		faults: () => emulator.faults,
		itemReads: /\/git\/blobs\//,
		listing: /\/git\/trees\//,
		refreshes: () => emulator.log.filter((line) => line === 'POST refresh').length,
	},
	env: () => ({ GITHUB_CLIENT_ID: emulator.clientId, GITHUB_CLIENT_SECRET: emulator.clientSecret }),
	server: () => ({ MEMORY_CONNECTORS: 'github', GITHUB_API_URL: emulator.url, GITHUB_WEB_URL: emulator.url }),
	async connect(t, body, key) {
		const { created: connection } = await authorizeThroughEmulator(t, 'github', body, key)
		const id = connection.body.id as string
		await syncSettled(t, id, '', key)
		const since = new Date().toISOString()
		const resources = [{ id: 1, full_name: REPO, defaultBranch: 'main' }]
		await t.json('POST', `/v3/connections/${id}/configure`, { resources }, key)
		return (await syncSettled(t, id, since, key)).id
	},
	externalId: (id) => `${REPO}:${id}.md`,
	oauth: true,
})
