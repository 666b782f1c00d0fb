import type { ConnectionRecord, SyncCounts } from '../plugins/connection-storage.ts'
import type { SyncEvent } from '../plugins/connector.ts'
import { applyDelete } from './apply-event.ts'
import type { ConnectorDeps } from './deps.ts'
import type { FailurePolicy } from './failure-policy.ts'

/** What the run saw that makes a listing untrustworthy: failed scopes, and errors naming no item. */
export interface ListingDoubts {
	failedScopes: Map<string, string>
	/** Failures naming no item (the listing itself went wrong somewhere). */
	unnamedFailures: number
}

type Present = Extract<SyncEvent, { type: 'present' }>

/**
 * Reconciliation of one scope: imported items (under `prefix`) missing from a complete listing are deleted, unless
 * the listing is in doubt. Answers why nothing was deleted (a note for the run), or null when it reconciled.
 */
export async function reconcile(
	deps: ConnectorDeps,
	connection: ConnectionRecord,
	present: Present,
	doubts: ListingDoubts,
	policy: FailurePolicy,
	counts: SyncCounts,
): Promise<string | null> {
	const scope = present.scope ?? present.prefix
	const label = scope === undefined ? 'the listing' : `the listing of ${scope}`
	if (present.complete !== true) return `${label} was not complete: nothing deleted`
	const scopeError = scope === undefined ? firstOf(doubts.failedScopes) : doubts.failedScopes.get(scope)
	if (scopeError !== undefined) return `${label} failed (${scopeError}): nothing deleted`
	// An item that failed to read is still listed (and read again later); a failure naming no item is a listing error.
	if (doubts.unnamedFailures > 0) return `${label} saw ${doubts.unnamedFailures} error(s): nothing deleted`
	const prefix = present.prefix
	const keep = new Set(present.externalIds)
	const held = await deps.storage.connections.items(connection.id, prefix)
	const missing = held.filter((item) => !keep.has(item.externalId))
	if (missing.length === 0) return null
	if (held.length >= policy.minScopeForShare && missing.length > held.length * policy.maxDeleteShare) {
		return `${label} lacks ${missing.length} of ${held.length} imported items, more than the ${Math.round(
			policy.maxDeleteShare * 100,
		)} % one sync may delete: nothing deleted`
	}
	for (const item of missing) await applyDelete(deps, connection, item.externalId, counts)
	return null
}

const firstOf = (map: Map<string, string>) => map.values().next().value
