import { expect } from 'bun:test'
import { type OnedriveOptions, onedrive } from '../connectors/onedrive/index.ts'
import { authorizeThroughEmulator, syncSettled } from './connections.ts'
import type { GraphEmulator } from './emulators/graph.ts'
import { startTestService } from './service.ts'

/** The upload cap the connector is given here: files above it are skipped. */
export const MAX_FILE_BYTES = 64 * 1024

/**
 * A service with the OneDrive connector pointed at the emulator. A real listener fronts the in-process app, so the
 * emulator's validation handshakes and notifications arrive over HTTP, as Graph's do.
 */
export async function onedriveHarness(
	driver: 'pglite' | 'postgres',
	emulator: GraphEmulator,
	options: OnedriveOptions = {},
) {
	let app: ((request: Request) => Promise<Response>) | null = null
	const front = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => app!(request) })
	const publicUrl = front.url.origin
	const t = await startTestService(driver, {
		env: {
			MICROSOFT_CLIENT_ID: emulator.clientId,
			MICROSOFT_CLIENT_SECRET: emulator.clientSecret,
			MEMORY_WEBHOOK_DEBOUNCE_SECONDS: '0',
			MEMORY_PUBLIC_URL: publicUrl,
		},
		plugins: [
			onedrive({
				graphUrl: emulator.url,
				loginUrl: emulator.url,
				maxFileBytes: MAX_FILE_BYTES,
				retry: { delaySeconds: 1, maxRetries: 3 },
				...options,
			}),
		],
		extractor: null,
	})
	app = (request) => t.service.app!.handle(request)
	const deps = t.service.services.connectorDeps
	const settled = (id: string, since: string, key = t.key) => syncSettled(t, id, since, key)
	/** Authorizes a connection as `user` (their drive as it is now) and waits for its first sync. */
	const connect = async (user: string, body: Record<string, unknown> = {}) => {
		emulator.consentAs(user)
		const { created, landed } = await authorizeThroughEmulator(t, 'onedrive', {
			containerTag: user,
			redirectUrl: 'https://app.example/connected',
			...body,
		})
		expect(landed.status).toBe(302)
		expect(new URL(landed.headers.get('location')!).searchParams.get('error')).toBeNull()
		const id = created.body.id as string
		return { id, created: created.body, synced: await settled(id, '') }
	}
	/** A manual import of the user's connection (its container tag), waited for. */
	const sync = async (id: string, tag: string) => {
		const since = new Date().toISOString()
		const started = await t.request('POST', '/v3/connections/onedrive/import', { body: { containerTags: [tag] } })
		expect(started.status).toBe(202)
		return settled(id, since)
	}
	const configure = async (id: string, resources: Record<string, unknown>[]) => {
		const since = new Date().toISOString()
		const configured = await t.json('POST', `/v3/connections/${id}/configure`, { resources })
		expect(configured.status).toBe(200)
		return { configured: configured.body, connection: await settled(id, since) }
	}
	const items = (id: string) => deps.storage.connections.items(id)
	const externalIds = async (id: string) => (await items(id)).map((item) => item.externalId).sort()
	const webhook = (query: string, body = '') =>
		t.request('POST', `/v3/connections/webhooks/onedrive${query}`, {
			body,
			key: null,
			headers: { 'content-type': 'text/plain' },
		})
	const stop = async () => {
		await t.stop()
		front.stop(true)
	}
	return { t, deps, publicUrl, connect, settled, sync, configure, items, externalIds, webhook, stop }
}
