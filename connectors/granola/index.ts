import { ConnectorAuthError, defineConnector, PLUGIN_API_VERSION } from '../../core/index.ts'
import { GranolaClient } from './client.ts'
import { noteDocument } from './note.ts'
import { syncGranola } from './sync.ts'
import type { GranolaCursor, GranolaOptions } from './types.ts'

export type { GranolaCursor, GranolaOptions } from './types.ts'

const DEFAULT_API_URL = 'https://public-api.granola.ai'

/** Granola meeting notes (summary, speaker-labelled transcript, attendees), read with a personal or workspace API key. */
export function granola(options: GranolaOptions = {}) {
	const apiUrl = (options.apiUrl || DEFAULT_API_URL).replace(/\/+$/, '').replace(/\/v1$/, '')
	const clientFor = (apiKey: string, signal?: AbortSignal) =>
		new GranolaClient({
			apiUrl,
			apiKey,
			minRequestIntervalMs: options.minRequestIntervalMs ?? 200,
			maxRetries: options.maxRetries ?? 5,
			signal,
		})
	return defineConnector<GranolaCursor, Record<string, unknown>>({
		apiVersion: PLUGIN_API_VERSION,
		kind: 'connector',
		name: 'granola',
		provider: 'granola',
		displayName: 'Granola',
		auth: {
			type: 'credentials',
			fields: [{ key: 'apiKey', label: 'Granola API key', secret: true }],
			async validate(credentials) {
				const apiKey = credentials.apiKey?.trim()
				if (!apiKey) throw new Error('Granola API key is required (metadata.apiKey)')
				try {
					await clientFor(apiKey, AbortSignal.timeout(15_000)).listNotes({})
				} catch (error) {
					if (error instanceof ConnectorAuthError) throw new Error('Granola API key is invalid')
					throw new Error(`Could not reach Granola API: ${(error as Error).message}`)
				}
				return undefined
			},
		},
		// Granola's official API documents no webhooks: polled, every 4 hours unless the service says otherwise.
		schedule: { everyHours: options.syncEveryHours === undefined ? 4 : options.syncEveryHours },
		sync(ctx, cursor) {
			const apiKey = ctx.credentials.apiKey ?? ''
			return syncGranola(ctx, cursor, clientFor(apiKey, ctx.signal))
		},
		/** A note that failed to read, read again: `gone` when Granola no longer shows it (deleted, or processing). */
		async readItem(ctx, externalId) {
			const client = clientFor(ctx.credentials.apiKey ?? '', ctx.signal)
			const note = await client.note(externalId)
			if (!note) return 'gone'
			if (await ctx.hasVersion(externalId, note.updated_at)) return 'unchanged'
			return noteDocument(note)
		},
	})
}
