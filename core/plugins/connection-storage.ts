import type { Scope } from '../domain/types.ts'
import type { CursorValue } from './connector.ts'

export type ConnectionStatus = 'pending' | 'active' | 'expired' | 'error'
export type SyncTrigger = 'manual' | 'schedule' | 'webhook'
export type SyncRunStatus = 'running' | 'completed' | 'failed' | 'limit_reached' | 'interrupted'
/** Supermemory's error codes of a sync run. */
export type SyncErrorCode = 'auth_expired' | 'rate_limited' | 'plan_required' | 'provider_unavailable' | 'internal'

export interface ConnectionRecord {
	id: string
	orgId: string
	provider: string
	containerTags: string[]
	documentLimit: number | null
	metadata: Record<string, string | number | boolean> | null
	redirectUrl: string | null
	status: ConnectionStatus
	error: string | null
	email: string | null
	/** The provider's id of the account that authorized (two connections of one account may share a grant). */
	accountId: string | null
	/** Sealed (core/settings/secret-box.ts) JSON: tokens, or credentials of a credential connector. */
	secrets: string | null
	/** Sealed JSON of the OAuth application the connection was authorized with. */
	app: string | null
	/** The connector's settings (chosen resources). */
	settings: Record<string, unknown>
	cursor: CursorValue | null
	createdAt: string
	updatedAt: string
}

export interface NewConnection {
	id: string
	provider: string
	containerTags: string[]
	documentLimit: number | null
	metadata: Record<string, string | number | boolean> | null
	redirectUrl: string | null
	status: ConnectionStatus
	email?: string | null
	accountId?: string | null
	secrets: string | null
	app: string | null
	settings: Record<string, unknown>
	/** A pending authorization: the state's nonce, the sealed PKCE verifier and when the link lapses. */
	auth?: { nonce: string; verifier: string | null; expiresAt: string }
}

export type ConnectionPatch = Partial<
	Pick<
		ConnectionRecord,
		'status' | 'error' | 'email' | 'accountId' | 'secrets' | 'app' | 'settings' | 'cursor' | 'documentLimit'
	>
>

export interface SyncCounts {
	added: number
	updated: number
	deleted: number
	skipped: number
	failed: number
}

export interface SyncRunRecord extends SyncCounts {
	id: string
	connectionId: string
	trigger: SyncTrigger
	status: SyncRunStatus
	error: string | null
	errorCode: SyncErrorCode | null
	/** Why the run held something back (deletions refused, a scope that failed), one sentence each. */
	notes: string[]
	/** A run ended by a long rate limit: when the next one starts. */
	retryAt: string | null
	startedAt: string
	completedAt: string | null
}

export interface SyncFailureRecord {
	id: string
	runId: string
	externalId: string | null
	error: string
	/** The item was given up (no more retries). */
	permanent: boolean
	createdAt: string
}

/** An item that failed to import, read again on later runs until it succeeds or is given up. */
export interface FailedItemRecord {
	externalId: string
	attempts: number
	/** Given up: not read again (until the provider lists it as changed). */
	permanent: boolean
	/** ISO time of the next attempt; null when permanent. */
	nextAttemptAt: string | null
	error: string
}

/** A document a connection imported, by the provider's id. */
export interface ImportedItem {
	externalId: string
	documentId: string
	version: string | null
}

export interface SubscriptionRecord {
	id: string
	connectionId: string
	orgId: string
	provider: string
	externalId: string
	routeKey: string
	/** Sealed secret the provider signs deliveries with. */
	secret: string
	expiresAt: string | null
	data: Record<string, string>
}

/** What `ConnectionStore.prune` deleted: delivery ids, turns, sync runs and abandoned connections. */
export interface PrunedRecords {
	deliveries: number
	turns: number
	runs: number
	abandoned: number
}

/**
 * Connections, their imported items, sync runs and webhook subscriptions. Scoped reads take the caller's
 * organization; methods by connection id alone are for the runtime, which got the id from a scoped job.
 */
export interface ConnectionStore {
	create(scope: Scope, input: NewConnection): Promise<ConnectionRecord>
	get(scope: Scope, id: string): Promise<ConnectionRecord | null>
	byId(id: string): Promise<ConnectionRecord | null>
	/** The organization's connections, newest first, optionally of one provider and sharing a container tag. */
	list(scope: Scope, filter: { provider?: string; containerTags?: string[] }): Promise<ConnectionRecord[]>
	update(id: string, patch: ConnectionPatch): Promise<void>
	/**
	 * Rewrites the connection's sealed secrets while holding its row locked, so processes sharing the store take turns:
	 * `change` gets the secrets as stored at that moment (another process may just have replaced them) and returns the
	 * ones to store, or null to leave them. Answers the secrets stored afterwards; undefined when there is no such
	 * connection. A throw from `change` stores nothing. `change` must not use the store itself.
	 */
	updateSecretsLocked(
		id: string,
		change: (secrets: string | null) => Promise<string | null>,
	): Promise<string | null | undefined>
	/** Deletes the connection with its items, runs and subscriptions; its documents keep existing, detached. */
	delete(scope: Scope, id: string): Promise<boolean>
	/**
	 * Takes the pending authorization once: the sealed verifier when `nonce` matches and has not lapsed, else null.
	 * A second call with the same nonce gets null.
	 */
	consumeAuth(orgId: string, id: string, nonce: string): Promise<{ verifier: string | null } | null>
	/** Records a new pending authorization (re-authorizing an existing connection). */
	setAuth(id: string, auth: { nonce: string; verifier: string | null; expiresAt: string }): Promise<void>

	item(connectionId: string, externalId: string): Promise<ImportedItem | null>
	putItem(connectionId: string, item: ImportedItem): Promise<void>
	removeItem(connectionId: string, externalId: string): Promise<void>
	/** Imported items, optionally those whose external id starts with `prefix`. */
	items(connectionId: string, prefix?: string): Promise<ImportedItem[]>
	countItems(connectionId: string): Promise<number>

	startRun(connectionId: string, trigger: SyncTrigger): Promise<SyncRunRecord>
	updateRun(
		runId: string,
		patch: Partial<Pick<SyncRunRecord, 'status' | 'error' | 'errorCode' | 'notes' | 'retryAt'>> & {
			counts?: SyncCounts
			finished?: boolean
		},
	): Promise<void>
	addFailure(runId: string, externalId: string | null, error: string, permanent?: boolean): Promise<void>

	/** The connection's failed items (retried and given up), oldest attempt first. */
	failedItems(connectionId: string): Promise<FailedItemRecord[]>
	failedItem(connectionId: string, externalId: string): Promise<FailedItemRecord | null>
	putFailedItem(connectionId: string, item: FailedItemRecord): Promise<void>
	removeFailedItem(connectionId: string, externalId: string): Promise<void>

	/**
	 * Takes the connection's sync lease for `owner` until `until` (ISO): true when it was free, lapsed or already
	 * `owner`'s (then extended). One sync runs per connection at a time, across processes.
	 */
	takeSyncLease(connectionId: string, owner: string, until: string): Promise<boolean>
	releaseSyncLease(connectionId: string, owner: string): Promise<void>
	/**
	 * Takes the turn named `key` (a crawled host) for `owner`, across every process on this store, when it is free, its
	 * next-allowed time has come and the last turn ended at least `gapMs` ago: the turn is held for `holdMs` at most (a
	 * process that dies lets it lapse). Returns 0 when taken, else the milliseconds until it may be asked again.
	 */
	takeTurn(key: string, owner: string, holdMs: number, gapMs?: number): Promise<number>
	/** Ends `owner`'s turn: the next one may start `nextInMs` from now. */
	endTurn(key: string, owner: string, nextInMs: number): Promise<void>
	/** Active connections, in any organization, authorized by this provider account. */
	connectionsOfAccount(accountId: string): Promise<ConnectionRecord[]>
	/** Connections with a run still marked `running` (at startup: runs their process did not finish). */
	interruptedConnections(): Promise<{ connectionId: string; trigger: SyncTrigger }[]>
	/** Marks runs still `running` as `interrupted` (their process died); returns how many. */
	interruptRuns(connectionId: string): Promise<number>
	runs(scope: Scope, connectionId: string, limit: number): Promise<SyncRunRecord[]>
	lastRuns(connectionIds: string[]): Promise<Map<string, SyncRunRecord>>
	failures(scope: Scope, connectionId: string, runId: string): Promise<SyncFailureRecord[] | null>

	addSubscriptions(
		connection: ConnectionRecord,
		subscriptions: Omit<SubscriptionRecord, 'id' | 'connectionId' | 'orgId' | 'provider'>[],
	): Promise<void>
	subscriptions(connectionId: string): Promise<SubscriptionRecord[]>
	/** The provider's subscriptions whose route key is one of `routeKeys`, in one query. */
	subscriptionsByRoutes(provider: string, routeKeys: string[]): Promise<SubscriptionRecord[]>
	/** Subscriptions lapsing before `before` (ISO), for renewal. */
	expiring(before: string): Promise<SubscriptionRecord[]>
	setSubscriptionExpiry(id: string, expiresAt: string | null): Promise<void>
	removeSubscription(id: string): Promise<void>
	/** Records a webhook delivery id; false when it was seen before (a replay). */
	recordDelivery(provider: string, deliveryId: string): Promise<boolean>
	/**
	 * Deletes bookkeeping past its use, across organizations: delivery ids received before `deliveriesBefore`, turns
	 * neither held nor ended since `turnsBefore`, connections still `pending` (an authorization never completed) made
	 * before `pendingBefore` (all ISO), and each connection's finished runs (with their failures) beyond its newest
	 * `runsKept`. Returns how many of each it deleted.
	 */
	prune(options: {
		deliveriesBefore: string
		turnsBefore: string
		pendingBefore: string
		runsKept: number
	}): Promise<PrunedRecords>
}
