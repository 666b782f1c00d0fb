import type { ConnectorDeps } from './deps.ts'

/** How the runtime treats failures, from the server's environment; every value has a default. */
export interface FailurePolicy {
	/** Attempts of one failed item before it is given up (MEMORY_CONNECTOR_ITEM_ATTEMPTS, default 5). */
	itemAttempts: number
	/** The first backoff step between an item's retries, doubled each time (MEMORY_CONNECTOR_RETRY_SECONDS, 300). */
	retryBaseSeconds: number
	/** The largest share of a scope one reconciliation may delete (MEMORY_CONNECTOR_MAX_DELETE_SHARE, 0.5). */
	maxDeleteShare: number
	/** Scopes holding fewer items than this are not held to the share (20). */
	minScopeForShare: number
	/** How long a run may work before it checkpoints and hands over to the next (MEMORY_CONNECTOR_RUN_SECONDS). */
	runSeconds: number
	/** How long a run's lease outlives its last heartbeat (MEMORY_CONNECTOR_LEASE_SECONDS, 15). */
	leaseSeconds: number
}

/** The sync job expires after two hours: a run hands over well before, so the queue never retries it meanwhile. */
export const SYNC_EXPIRE_SECONDS = 2 * 3600
const DEFAULT_RUN_SECONDS = SYNC_EXPIRE_SECONDS - 10 * 60

function number(env: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number) {
	const raw = env[name]
	if (raw === undefined || raw === '') return fallback
	const value = Number(raw)
	if (!Number.isFinite(value) || value < min || value > max) {
		throw new Error(`${name} must be a number from ${min} to ${max}, got "${raw}"`)
	}
	return value
}

export function failurePolicy(deps: Pick<ConnectorDeps, 'env'>): FailurePolicy {
	const env = deps.env
	return {
		itemAttempts: Math.round(number(env, 'MEMORY_CONNECTOR_ITEM_ATTEMPTS', 5, 1, 100)),
		retryBaseSeconds: number(env, 'MEMORY_CONNECTOR_RETRY_SECONDS', 300, 0, 7 * 86_400),
		maxDeleteShare: number(env, 'MEMORY_CONNECTOR_MAX_DELETE_SHARE', 0.5, 0, 1),
		minScopeForShare: 20,
		runSeconds: number(env, 'MEMORY_CONNECTOR_RUN_SECONDS', DEFAULT_RUN_SECONDS, 1, DEFAULT_RUN_SECONDS),
		leaseSeconds: number(env, 'MEMORY_CONNECTOR_LEASE_SECONDS', 15, 1, 3600),
	}
}
