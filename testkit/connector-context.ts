import {
	type CursorValue,
	createLogger,
	type ExternalDocument,
	type SyncContext,
	type SyncEvent,
} from '../core/index.ts'

/**
 * What a connector's sync left behind, applied the way the runtime applies it: upserts kept by external id,
 * deletions and complete `present` reconciliation removing items, the last checkpoint kept as the cursor.
 */
export interface SyncHarness<Settings> {
	ctx: SyncContext<Settings>
	documents: Map<string, ExternalDocument>
	cursor: CursorValue | null
	/** Runs one sync from the kept cursor and returns the events it yielded. */
	run<Cursor extends CursorValue>(
		sync: (ctx: SyncContext<Settings>, cursor: Cursor | null) => AsyncIterable<SyncEvent<Cursor>>,
	): Promise<SyncEvent[]>
}

export function syncHarness<Settings = Record<string, unknown>>(input: {
	settings?: Settings
	credentials?: Record<string, string>
	metadata?: Record<string, string | number | boolean>
	/** Stops the run after this many upserts, as the runtime does at a connection's documentLimit. */
	documentLimit?: number
}): SyncHarness<Settings> {
	const documents = new Map<string, ExternalDocument>()
	const harness: SyncHarness<Settings> = {
		documents,
		cursor: null,
		ctx: {
			connectionId: 'connection-test',
			settings: (input.settings ?? {}) as Settings,
			accessToken: async () => {
				throw new Error('this connector has no OAuth token')
			},
			credentials: input.credentials ?? {},
			withToken: (call) => call(Object.values(input.credentials ?? {})[0] ?? ''),
			metadata: input.metadata ?? {},
			hasVersion: async (externalId, version) => documents.get(externalId)?.version === version,
			importedIds: async () => [...documents.keys()],
			logger: createLogger('error'),
			signal: new AbortController().signal,
		},
		async run(sync) {
			const events: SyncEvent[] = []
			const failedScopes = new Set<string>()
			for await (const event of sync(harness.ctx, harness.cursor as never)) {
				events.push(event)
				if (event.type === 'upsert') {
					const isNew = !documents.has(event.document.externalId)
					if (isNew && input.documentLimit !== undefined && documents.size >= input.documentLimit) break
					documents.set(event.document.externalId, event.document)
				} else if (event.type === 'delete') documents.delete(event.externalId)
				else if (event.type === 'scope-failed') failedScopes.add(event.scope)
				else if (event.type === 'present') {
					// As the runtime: only a complete listing of a scope that did not fail deletes.
					if (event.complete !== true || failedScopes.has(event.scope ?? event.prefix ?? '')) continue
					const present = new Set(event.externalIds)
					for (const id of [...documents.keys()]) {
						if (id.startsWith(event.prefix ?? '') && !present.has(id)) documents.delete(id)
					}
				} else if (event.type === 'checkpoint') harness.cursor = event.cursor
			}
			return events
		},
	}
	return harness
}

export const eventsOf = <T extends SyncEvent['type']>(events: SyncEvent[], type: T) =>
	events.filter((event): event is Extract<SyncEvent, { type: T }> => event.type === type)
