/**
 * Attacks from the security review on a running service: OAuth completed by another browser, a restricted key racing
 * a customId another tag holds, hostile ids through the console's path builder, a GitHub delivery replayed under a
 * new delivery id, and one organization's Notion verification token signing deliveries for another's connection.
 * Each returns a drill row.
 */
import { apiPath } from '../../console/lib/api-path.ts'
import type { GithubEmulator } from '../../testkit/emulators/github.ts'
import type { NotionEmulator } from '../../testkit/emulators/notion.ts'
import { settle } from './service.ts'
import type { DrillRow } from './webhooks.ts'

const REPO = 'drill/handbook'

/** The verification token of the server's Notion integration, and one of an organization's own. */
const NOTION_SERVER_TOKEN = 'secret_drill_server_integration_0001'
const NOTION_ORG_TOKEN = 'secret_drill_organization_integration_02'

/** The emulated providers the drill's services talk to. */
export interface Providers {
	github: GithubEmulator
	notion: NotionEmulator
}

/** The service's environment for the GitHub and Notion connectors pointed at the emulators (webhooks sync at once). */
export function providerEnv({ github, notion }: Providers): Record<string, string> {
	return {
		GITHUB_CLIENT_ID: github.clientId,
		GITHUB_CLIENT_SECRET: github.clientSecret,
		GITHUB_API_URL: github.url,
		GITHUB_WEB_URL: github.url,
		NOTION_CLIENT_ID: notion.clientId,
		NOTION_CLIENT_SECRET: notion.clientSecret,
		NOTION_API_URL: notion.url,
		NOTION_REQUESTS_PER_SECOND: '50',
		NOTION_WEBHOOK_VERIFICATION_TOKEN: NOTION_SERVER_TOKEN,
		MEMORY_WEBHOOK_DEBOUNCE_SECONDS: '0',
	}
}

/** A repository the GitHub rows connect to; made once per emulator. */
export function drillRepository(emulator: GithubEmulator) {
	emulator.createRepo(REPO, { 'README.md': '# Drill handbook\n\nShips on Thursdays.' })
}

const client = (url: string) =>
	async function call(method: string, path: string, key: string | null, body?: unknown) {
		const response = await fetch(`${url}${path}`, {
			method,
			headers: {
				...(key ? { authorization: `Bearer ${key}` } : {}),
				...(body === undefined ? {} : { 'content-type': 'application/json' }),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		})
		const text = await response.text()
		let parsed: Record<string, any> = {}
		try {
			parsed = JSON.parse(text)
		} catch {}
		return { status: response.status, body: parsed }
	}

/** The start link opened by a browser: the provider's URL and the binding cookie it was given. */
async function openLink(authLink: string) {
	const started = await fetch(authLink, { redirect: 'manual' })
	return {
		status: started.status,
		providerUrl: started.headers.get('location') ?? '',
		cookie: (started.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
	}
}

/** The provider (the emulator consents at once) and back to the callback, from a browser sending `cookie`. */
async function consentAndReturn(providerUrl: string, cookie: string | null) {
	const consent = await fetch(providerUrl, { redirect: 'manual' })
	const callback = consent.headers.get('location') ?? ''
	const landed = await fetch(callback, { redirect: 'manual', headers: cookie ? { cookie } : {} })
	await landed.arrayBuffer()
	return landed.status
}

async function connectionStatus(url: string, admin: string, id: string) {
	return (await client(url)('GET', `/v3/connections/${id}`, admin)).body.status as string
}

/**
 * Someone else's browser (no cookie; the cookie of another link it opened) brings back the provider's redirect of a
 * link the first browser opened: no connection is made, and the first browser still completes it.
 */
export async function oauthBinding(url: string, admin: string, store: string): Promise<DrillRow> {
	const call = client(url)
	const create = async (tag: string) =>
		(
			await call('POST', '/v3/connections/github', admin, {
				containerTag: tag,
				redirectUrl: 'https://app.example/done',
			})
		).body as { id: string; authLink: string }
	const victim = await create('drill_oauth')
	const first = await openLink(victim.authLink)
	const other = await create('drill_oauth_other')
	const second = await openLink(other.authLink)
	const answers = [
		await consentAndReturn(first.providerUrl, null),
		await consentAndReturn(first.providerUrl, second.cookie),
	]
	const afterOthers = await connectionStatus(url, admin, victim.id)
	const owner = await consentAndReturn(first.providerUrl, first.cookie)
	const afterOwner = await connectionStatus(url, admin, victim.id)
	for (const id of [victim.id, other.id]) await call('DELETE', `/v3/connections/${id}`, admin)
	return {
		tried: `${store}: a second browser (no cookie; another link's cookie) brings back someone else's OAuth redirect`,
		expected: '4xx each, the connection stays unauthorized; the browser that opened the link completes it (302)',
		observed: `${answers.join(', ')}, connection ${afterOthers}; opener ${owner}, connection ${afterOwner}`,
		ok: answers.every((status) => status >= 400 && status < 500) && afterOthers !== 'active' && owner === 302,
	}
}

/**
 * A key restricted to one tag makes a decoy with the customId of another tag's document and deletes it while reading
 * and overwriting by that customId, at offsets of 0 to 11 ms, `attempts` times: the other tag's document is never read
 * nor changed.
 */
export async function customIdRace(url: string, admin: string, store: string, attempts = 24): Promise<DrillRow> {
	const call = client(url)
	const secret = 'Drill tag_b secret: the launch code is 7741-RACE.'
	const target = await call('POST', '/v3/documents', admin, {
		content: secret,
		containerTag: 'drill_race_b',
		customId: 'drill-race-target',
		dreaming: 'instant',
	})
	await settle(url, admin, target.body.id, 60_000)
	const restricted = (await call('POST', '/v3/keys', admin, { name: 'drill race', containerTags: ['drill_race_a'] }))
		.body.key as string
	let reads = 0
	let overwrites = 0
	let unexpected = 0
	for (let attempt = 0; attempt < attempts; attempt++) {
		const decoy = await call('POST', '/v3/documents', restricted, {
			content: `decoy ${attempt}`,
			containerTag: 'drill_race_a',
			customId: 'drill-race-target',
		})
		const [, chunks, patched] = await Promise.all([
			Bun.sleep(attempt % 12).then(() => call('DELETE', `/v3/documents/${decoy.body.id}`, restricted)),
			call('GET', '/v3/documents/drill-race-target/chunks', restricted),
			call('PATCH', '/v3/documents/drill-race-target', restricted, { content: `Overwritten (${attempt}).` }),
		])
		if (JSON.stringify(chunks.body).includes('7741-RACE')) reads++
		if (patched.body.id === target.body.id) overwrites++
		for (const answer of [chunks, patched]) if (answer.status !== 200 && answer.status !== 404) unexpected++
		// What the patch may have made of the decoy goes too before the next attempt.
		const leftover = await call('GET', '/v3/documents/drill-race-target', restricted)
		if (leftover.status === 200) await call('DELETE', `/v3/documents/${leftover.body.id}`, restricted)
	}
	const after = await call('GET', `/v3/documents/${target.body.id}`, admin)
	const intact = after.body.content === secret
	return {
		tried: `${store}: key restricted to tag A reads and overwrites by customId a tag B document, racing a decoy (${attempts}×)`,
		expected: '0 reads, 0 overwrites, tag B document unchanged',
		observed: `${reads} reads, ${overwrites} overwrites, ${unexpected} other answers; tag B document ${intact ? 'unchanged' : 'CHANGED'}`,
		ok: reads + overwrites + unexpected === 0 && intact,
	}
}

/** customIds an author chooses to make a console path reach another route, as the console page would receive them. */
const HOSTILE_IDS = ['../container-tags/drill_victim', '/', '..', '?deleteDocuments=true', '#x', 'a/../../keys', '.']

/**
 * A key restricted to one tag writes documents with hostile customIds; the console's path builder makes the load and
 * delete paths of each (by the customId, harder than the page's delete by the loaded id), which an administrator's
 * browser sends as it resolves them: each delete removes its own document only, and the other tag's survives.
 */
export async function consolePaths(url: string, admin: string, store: string): Promise<DrillRow> {
	const call = client(url)
	const victim = await call('POST', '/v3/documents', admin, {
		content: 'Victim tag document.',
		containerTag: 'drill_victim',
	})
	await settle(url, admin, victim.body.id, 60_000)
	const restricted = (await call('POST', '/v3/keys', admin, { name: 'drill paths', containerTags: ['drill_paths'] }))
		.body.key as string
	const total = async () =>
		((await call('POST', '/v3/documents/list', admin, {})).body.pagination?.totalItems as number) ?? Number.NaN
	let deleted = 0
	let refused = 0
	let strays = 0
	for (const customId of HOSTILE_IDS) {
		const written = await call('POST', '/v3/documents', restricted, {
			content: `Routine note ${customId}.`,
			containerTag: 'drill_paths',
			customId,
		})
		await settle(url, admin, written.body.id, 60_000)
		const before = await total()
		let path: string
		try {
			path = apiPath`/v3/documents/${customId}`
		} catch {
			// `.` and `..` cannot be a path segment: the console refuses to build the path.
			refused++
			await call('DELETE', `/v3/documents/${written.body.id}`, admin)
			continue
		}
		// The administrator's browser resolves the path against the console's origin, as fetch does.
		const target = new URL(path, url)
		const loaded = await fetch(target, { headers: { authorization: `Bearer ${admin}` } })
		await loaded.arrayBuffer()
		const removed = await fetch(target, { method: 'DELETE', headers: { authorization: `Bearer ${admin}` } })
		await removed.arrayBuffer()
		const gone = (await call('GET', `/v3/documents/${written.body.id}`, admin)).status === 404
		if (gone) deleted++
		const lost = before - (await total()) - (gone ? 1 : 0)
		if (lost !== 0 || loaded.status !== 200) strays++
		if (!gone) await call('DELETE', `/v3/documents/${written.body.id}`, admin)
	}
	const survived = (await call('GET', `/v3/documents/${victim.body.id}`, admin)).status === 200
	const built = HOSTILE_IDS.length - refused
	return {
		tried: `${store}: console paths for ${HOSTILE_IDS.length} customIds (${HOSTILE_IDS.map((id) => JSON.stringify(id)).join(', ')}), loaded and deleted`,
		expected: '. and .. refused by the path builder; each other delete removes its own document only',
		observed: `${refused} refused, ${deleted}/${built} deleted their own document, ${strays} touched anything else; other tag's document ${survived ? 'kept' : 'DELETED'}`,
		ok: deleted === built && strays === 0 && survived && refused === 2,
	}
}

/** The connection's sync runs, as its organization's key sees them. */
async function syncRuns(url: string, key: string, id: string) {
	return ((await client(url)('GET', `/v3/connections/${id}/sync-runs`, key)).body.syncRuns ?? []) as {
		status: string
	}[]
}

/** Waits (up to 20 s) until the connection has more than `count` sync runs and none is running: how many it has. */
async function runsSettledPast(url: string, key: string, id: string, count: number) {
	for (let i = 0; i < 400; i++) {
		const all = await syncRuns(url, key, id)
		if (all.length > count && all.every((run) => run.status !== 'running')) return all.length
		await Bun.sleep(50)
	}
	return (await syncRuns(url, key, id)).length
}

/** Creates a connection and completes its OAuth flow in one browser (the emulator consents at once): its id. */
async function connectThroughEmulator(url: string, key: string, provider: string, containerTag: string) {
	const created = (
		await client(url)('POST', `/v3/connections/${provider}`, key, {
			containerTag,
			redirectUrl: 'https://app.example/done',
		})
	).body as { id: string; authLink: string }
	const browser = await openLink(created.authLink)
	await consentAndReturn(browser.providerUrl, browser.cookie)
	return created.id
}

/**
 * One workspace connected by two organizations, through the server's Notion integration and through the second
 * organization's own: a delivery signed with the second organization's token starts only its connection's sync, one
 * signed with the server's token only the first one's, and one signed with neither is refused.
 */
export async function notionBinding(
	url: string,
	admin: string,
	other: string,
	store: string,
	notion: NotionEmulator,
): Promise<DrillRow> {
	const call = client(url)
	await call('PATCH', '/v3/settings', other, {
		notionClientId: notion.clientId,
		notionClientSecret: notion.clientSecret,
		notionCustomKeyEnabled: true,
		notionWebhookVerificationToken: NOTION_ORG_TOKEN,
	})
	const connections = [
		{ key: admin, id: await connectThroughEmulator(url, admin, 'notion', 'drill_notion') },
		{ key: other, id: await connectThroughEmulator(url, other, 'notion', 'drill_notion') },
	]
	const counts = () => Promise.all(connections.map(({ key, id }) => runsSettledPast(url, key, id, 0)))
	await counts()
	const deliver = async (token: string) => {
		const before = await counts()
		const delivery = await notion.delivery(token, { type: 'page.updated', entityId: 'drill' })
		const answer = await fetch(`${url}/v3/connections/webhooks/notion`, {
			method: 'POST',
			headers: delivery.headers,
			body: delivery.body,
		})
		await answer.arrayBuffer()
		// A sync it asked for starts at once (no debounce): give it time to show, and to end.
		await Bun.sleep(1_500)
		const after = await counts()
		return { status: answer.status, started: after.map((count, i) => count - before[i]!) }
	}
	const byOther = await deliver(NOTION_ORG_TOKEN)
	const byServer = await deliver(NOTION_SERVER_TOKEN)
	const byNobody = await deliver('secret_drill_token_nobody_configured')
	for (const { key, id } of connections) await call('DELETE', `/v3/connections/${id}`, key)
	const shown = (outcome: { status: number; started: number[] }) => `${outcome.status} [${outcome.started.join(', ')}]`
	return {
		tried: `${store}: Notion deliveries for a workspace two organizations connected, signed with the second's own token, the server's, and neither`,
		expected: '202 [0, 1]; 202 [1, 0]; 401 [0, 0] (status [syncs started: first, second])',
		observed: `${shown(byOther)}; ${shown(byServer)}; ${shown(byNobody)}`,
		ok: shown(byOther) === '202 [0, 1]' && shown(byServer) === '202 [1, 0]' && shown(byNobody) === '401 [0, 0]',
	}
}

/**
 * A connection with a hook on a repository; a signed push delivered, then the same signed body under a new
 * X-GitHub-Delivery: acknowledged without effect, no sync run started.
 */
export async function githubReplay(
	url: string,
	admin: string,
	store: string,
	emulator: GithubEmulator,
): Promise<DrillRow> {
	const call = client(url)
	const created = (
		await call('POST', '/v3/connections/github', admin, {
			containerTag: 'drill_github',
			redirectUrl: 'https://app.example/done',
		})
	).body as { id: string; authLink: string }
	const browser = await openLink(created.authLink)
	await consentAndReturn(browser.providerUrl, browser.cookie)
	const runs = async () =>
		((await call('GET', `/v3/connections/${created.id}/sync-runs`, admin)).body.syncRuns ?? []) as {
			status: string
		}[]
	/** Waits (up to 20 s) until more than `count` sync runs exist and none is running: how many there are. */
	const settledPast = async (count: number) => {
		for (let i = 0; i < 400; i++) {
			const all = await runs()
			if (all.length > count && all.every((run) => run.status !== 'running')) return all.length
			await Bun.sleep(50)
		}
		return (await runs()).length
	}
	const first = await settledPast(0)
	await call('POST', `/v3/connections/${created.id}/configure`, admin, { resources: [{ full_name: REPO }] })
	const configured = await settledPast(first)
	emulator.commit(REPO, { 'drill.md': `# Drill ${Date.now()}` })
	const delivery = emulator.pushDelivery(REPO)
	const post = (headers: Record<string, string>) =>
		fetch(`${url}/v3/connections/webhooks/github`, { method: 'POST', headers, body: delivery.body }).then(
			async (response) => `${response.status} ${JSON.stringify(await response.json())}`,
		)
	const pushed = await post(delivery.headers)
	const before = await settledPast(configured)
	const replayed = await post({ ...delivery.headers, 'x-github-delivery': crypto.randomUUID() })
	// A sync it asked for would start at once (no debounce): give it time to show.
	await Bun.sleep(2_000)
	const after = (await runs()).length
	await call('DELETE', `/v3/connections/${created.id}`, admin)
	return {
		tried: `${store}: a signed GitHub push, then the same signed body under a new X-GitHub-Delivery`,
		expected: 'first 202 accepted 1; replay 202 accepted 0, no sync run',
		observed: `first ${pushed}; replay ${replayed}, ${after - before} sync runs after it`,
		ok: pushed === '202 {"accepted":1}' && replayed === '202 {"accepted":0}' && after === before,
	}
}

/**
 * Every row above, in an order that leaves the webhook rate limit to the floods that follow; `other` is a key of
 * another organization.
 */
export async function securityRows(
	url: string,
	keys: { admin: string; other: string },
	store: string,
	providers: Providers,
): Promise<DrillRow[]> {
	return [
		await oauthBinding(url, keys.admin, store),
		await customIdRace(url, keys.admin, store),
		await consolePaths(url, keys.admin, store),
		await githubReplay(url, keys.admin, store, providers.github),
		await notionBinding(url, keys.admin, keys.other, store, providers.notion),
	]
}
