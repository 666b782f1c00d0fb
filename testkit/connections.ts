import type { TestService } from './service.ts'

/** Waits until a sync run of the connection that started at or after `since` (ISO) has finished; returns it. */
export async function syncSettled(t: TestService, id: string, since: string, key = t.key) {
	for (let i = 0; i < 600; i++) {
		const { body } = await t.json('GET', `/v3/connections/${id}`, undefined, key)
		const run = body.lastSyncRun
		if (run && run.status !== 'running' && run.startedAt >= since) return body
		await Bun.sleep(50)
	}
	throw new Error(`connection ${id} never finished a sync`)
}

/**
 * Creates a connection of `provider` and completes its OAuth flow through the provider's emulator, whose consent
 * page redirects back at once: the create response, the callback URL and the service's answer to it.
 */
export async function authorizeThroughEmulator(
	t: TestService,
	provider: string,
	body: Record<string, unknown>,
	key = t.key,
) {
	const created = await t.json('POST', `/v3/connections/${provider}`, body, key)
	if (created.status !== 200) throw new Error(`creating the connection answered ${created.status}`)
	const consent = await fetch(created.body.authLink, { redirect: 'manual' })
	const callback = new URL(consent.headers.get('location')!)
	const landed = await t.request('GET', `${callback.pathname}${callback.search}`, { key: null })
	return { created, callback, landed }
}
