import type { ServiceClient } from './service.ts'

/** Waits until a sync run of the connection that started at or after `since` (ISO) has finished; returns it. */
export async function syncSettled(t: ServiceClient, id: string, since: string, key = t.key) {
	for (let i = 0; i < 600; i++) {
		const { body } = await t.json('GET', `/v3/connections/${id}`, undefined, key)
		const run = body.lastSyncRun
		if (run && run.status !== 'running' && run.startedAt >= since) return body
		await Bun.sleep(50)
	}
	throw new Error(`connection ${id} never finished a sync`)
}

/**
 * Opens an authorization link as the user's browser does: the service binds the browser (a cookie) and redirects it
 * to the provider. The provider's URL and the cookie to send back with the callback.
 */
export async function openAuthLink(t: ServiceClient, authLink: string) {
	const link = new URL(authLink)
	const started = await t.request('GET', `${link.pathname}${link.search}`, { key: null })
	if (started.status !== 302)
		throw new Error(`the authorization link answered ${started.status}: ${await started.text()}`)
	const cookie = (started.headers.get('set-cookie') ?? '').split(';')[0]!
	return { providerUrl: new URL(started.headers.get('location')!), cookie }
}

/** Where an authorization link sends the browser: the provider's authorize URL. */
export async function providerUrlOf(t: ServiceClient, authLink: string): Promise<URL> {
	return (await openAuthLink(t, authLink)).providerUrl
}

/**
 * Follows an authorization link over real HTTP as a browser does (the provider's emulator consenting at once), sending
 * the service's cookie back with the callback: the callback's answer.
 */
export async function followAuthLink(authLink: string): Promise<Response> {
	const started = await fetch(authLink, { redirect: 'manual' })
	const cookie = (started.headers.get('set-cookie') ?? '').split(';')[0]
	const consent = await fetch(started.headers.get('location')!, { redirect: 'manual' })
	return fetch(consent.headers.get('location')!, { redirect: 'manual', headers: cookie ? { cookie } : {} })
}

/** Brings the provider's redirect back to the service, from the browser holding `cookie` (null: another browser). */
export function landCallback(t: ServiceClient, callback: URL, cookie: string | null) {
	return t.request('GET', `${callback.pathname}${callback.search}`, {
		key: null,
		headers: cookie ? { cookie } : {},
	})
}

/** Opens an authorization link, consents at the emulator and brings its redirect back, all from one browser. */
export async function authorizeLink(t: ServiceClient, authLink: string) {
	const { providerUrl, cookie } = await openAuthLink(t, authLink)
	const consent = await fetch(providerUrl, { redirect: 'manual' })
	const callback = new URL(consent.headers.get('location')!)
	const landed = await landCallback(t, callback, cookie)
	return { providerUrl, callback, landed, cookie }
}

/**
 * Creates a connection of `provider` and completes its OAuth flow through the provider's emulator, whose consent
 * page redirects back at once: the create response, the callback URL and the service's answer to it.
 */
export async function authorizeThroughEmulator(
	t: ServiceClient,
	provider: string,
	body: Record<string, unknown>,
	key = t.key,
) {
	const created = await t.json('POST', `/v3/connections/${provider}`, body, key)
	if (created.status !== 200) throw new Error(`creating the connection answered ${created.status}`)
	return { created, ...(await authorizeLink(t, created.body.authLink)) }
}
