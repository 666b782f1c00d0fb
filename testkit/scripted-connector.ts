import {
	type ConnectorPlugin,
	defineConnector,
	type ExternalDocument,
	InsufficientScopeError,
	ItemError,
	PLUGIN_API_VERSION,
	RateLimitedError,
	type SyncEvent,
} from '../core/index.ts'

/**
 * A provider the test scripts, one world per connection (its metadata `world`): items with a change sequence,
 * reads that fail, listings that are incomplete or refused, rate limits and slow reads. The connector reads it
 * like a real one: incremental from a sequence cursor, a full listing (with `present`) from a null cursor.
 */
export interface ScriptedWorld {
	items: Map<string, { seq: number; content: string }>
	seq: number
	/** Reads of these ids fail: `transient` ones are worth retrying, `permanent` ones are not. */
	failing: Map<string, 'transient' | 'permanent'>
	/** Whether the full listing says it is complete. */
	complete: boolean
	/** Scopes (id prefixes) the full listing reports as refused. */
	refusedScopes: Set<string>
	/** The full listing reconciles per scope (the id prefix up to the first ':'). */
	scoped: boolean
	rateLimitedUntil: number
	/** Thrown by the next listing, once. */
	throwOnce: Error | null
	missingScope: string | null
	/** The full listing reports an error naming no item (a page it could not read). */
	listingError: string | null
	/** Milliseconds each item takes to read. */
	readMs: number
	reads: string[]
	active: number
	maxActive: number
}

export function scriptedWorld(): ScriptedWorld {
	return {
		items: new Map(),
		seq: 0,
		failing: new Map(),
		complete: true,
		refusedScopes: new Set(),
		scoped: false,
		rateLimitedUntil: 0,
		throwOnce: null,
		missingScope: null,
		listingError: null,
		readMs: 0,
		reads: [],
		active: 0,
		maxActive: 0,
	}
}

export function putItem(world: ScriptedWorld, id: string, content: string) {
	world.items.delete(id)
	world.items.set(id, { seq: ++world.seq, content })
}

type Cursor = { seq: number }

/** A scripted connector; `readItem: false` leaves it out (the runtime then lists everything again to retry). */
export function scriptedConnector(
	provider: string,
	worlds: Map<string, ScriptedWorld>,
	options: { readItem: boolean },
): ConnectorPlugin<Cursor, Record<string, unknown>> {
	const worldOf = (metadata: Record<string, unknown>) => {
		const world = worlds.get(String(metadata.world))
		if (!world) throw new Error(`no scripted world ${String(metadata.world)}`)
		return world
	}
	const read = async (world: ScriptedWorld, id: string): Promise<ExternalDocument> => {
		world.reads.push(id)
		if (world.readMs) await Bun.sleep(world.readMs)
		const failing = world.failing.get(id)
		if (failing) throw new ItemError(`${id} could not be read`, { retry: failing })
		const item = world.items.get(id)!
		return { externalId: id, version: String(item.seq), title: id, content: item.content, url: null }
	}
	return defineConnector<Cursor, Record<string, unknown>>({
		apiVersion: PLUGIN_API_VERSION,
		kind: 'connector',
		name: provider,
		provider,
		displayName: provider,
		auth: { type: 'none' },
		schedule: { everyHours: null },
		...(options.readItem
			? {
					async readItem(ctx, externalId) {
						const world = worldOf(ctx.metadata)
						return world.items.has(externalId) ? read(world, externalId) : 'gone'
					},
				}
			: {}),
		async *sync(ctx, cursor): AsyncGenerator<SyncEvent<Cursor>> {
			const world = worldOf(ctx.metadata)
			world.active++
			world.maxActive = Math.max(world.maxActive, world.active)
			try {
				if (world.throwOnce) {
					const error = world.throwOnce
					world.throwOnce = null
					throw error
				}
				if (world.missingScope) throw new InsufficientScopeError([world.missingScope])
				if (Date.now() < world.rateLimitedUntil) throw new RateLimitedError(new Date(world.rateLimitedUntil))
				const since = cursor?.seq ?? 0
				for (const [id, item] of [...world.items]) {
					if (item.seq <= since) continue
					if (ctx.signal.aborted) return
					if (await ctx.hasVersion(id, String(item.seq))) {
						yield { type: 'unchanged', externalId: id }
					} else {
						try {
							yield { type: 'upsert', document: await read(world, id) }
						} catch (error) {
							const retry = error instanceof ItemError ? error.retry : 'transient'
							yield { type: 'failure', externalId: id, error: (error as Error).message, retry }
						}
					}
					yield { type: 'checkpoint', cursor: { seq: item.seq } }
				}
				if (since === 0) yield* listing(world)
				yield { type: 'checkpoint', cursor: { seq: world.seq } }
			} finally {
				world.active--
			}
		},
	})
}

function* listing(world: ScriptedWorld): Generator<SyncEvent<Cursor>> {
	const ids = [...world.items.keys()]
	if (world.listingError) yield { type: 'failure', externalId: null, error: world.listingError }
	if (!world.scoped) {
		yield { type: 'present', externalIds: ids, complete: world.complete }
		return
	}
	const scopes = new Set([...ids, ...world.refusedScopes].map((id) => id.split(':')[0]!))
	for (const scope of scopes) {
		const prefix = `${scope}:`
		const refused = world.refusedScopes.has(scope)
		// A refused scope still yields what it listed (nothing): core must not take that for a listing.
		if (refused) yield { type: 'scope-failed', scope, error: `${scope} answered 403` }
		yield {
			type: 'present',
			scope,
			prefix,
			externalIds: refused ? [] : ids.filter((id) => id.startsWith(prefix)),
			complete: world.complete,
		}
	}
}
