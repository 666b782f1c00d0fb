import type {
	ConnectionRecord,
	CursorValue,
	FailedItemRecord,
	SubscriptionRecord,
	SyncFailureRecord,
	SyncRunRecord,
} from '../../../core/index.ts'

const iso = (value: Date | null) => (value ? value.toISOString() : null)

export interface ConnectionRow {
	id: string
	org_id: string
	provider: string
	container_tags: string[]
	document_limit: number | null
	metadata: ConnectionRecord['metadata']
	redirect_url: string | null
	status: ConnectionRecord['status']
	error: string | null
	email: string | null
	account_id: string | null
	secrets: string | null
	app: string | null
	settings: Record<string, unknown>
	cursor: CursorValue | null
	created_at: Date
	updated_at: Date
}

export const CONNECTION_COLUMNS = `id, org_id, provider, container_tags, document_limit, metadata, redirect_url, status,
	error, email, account_id, secrets, app, settings, cursor, created_at, updated_at`

export function toConnection(row: ConnectionRow): ConnectionRecord {
	return {
		id: row.id,
		orgId: row.org_id,
		provider: row.provider,
		containerTags: row.container_tags,
		documentLimit: row.document_limit,
		metadata: row.metadata,
		redirectUrl: row.redirect_url,
		status: row.status,
		error: row.error,
		email: row.email,
		accountId: row.account_id,
		secrets: row.secrets,
		app: row.app,
		settings: row.settings ?? {},
		cursor: row.cursor,
		createdAt: row.created_at.toISOString(),
		updatedAt: row.updated_at.toISOString(),
	}
}

export interface SyncRunRow {
	id: string
	connection_id: string
	trigger: SyncRunRecord['trigger']
	status: SyncRunRecord['status']
	added: number
	updated: number
	deleted: number
	skipped: number
	failed: number
	error: string | null
	error_code: SyncRunRecord['errorCode']
	notes: string[] | null
	retry_at: Date | null
	started_at: Date
	completed_at: Date | null
}

export function toSyncRun(row: SyncRunRow): SyncRunRecord {
	return {
		id: row.id,
		connectionId: row.connection_id,
		trigger: row.trigger,
		status: row.status,
		added: row.added,
		updated: row.updated,
		deleted: row.deleted,
		skipped: row.skipped,
		failed: row.failed,
		error: row.error,
		errorCode: row.error_code,
		notes: row.notes ?? [],
		retryAt: iso(row.retry_at),
		startedAt: row.started_at.toISOString(),
		completedAt: iso(row.completed_at),
	}
}

export function toFailure(row: {
	id: string
	run_id: string
	external_id: string | null
	error: string
	permanent: boolean
	created_at: Date
}): SyncFailureRecord {
	return {
		id: row.id,
		runId: row.run_id,
		externalId: row.external_id,
		error: row.error,
		permanent: row.permanent,
		createdAt: row.created_at.toISOString(),
	}
}

export interface FailedItemRow {
	external_id: string
	attempts: number
	permanent: boolean
	next_attempt_at: Date | null
	error: string
}

export function toFailedItem(row: FailedItemRow): FailedItemRecord {
	return {
		externalId: row.external_id,
		attempts: row.attempts,
		permanent: row.permanent,
		nextAttemptAt: iso(row.next_attempt_at),
		error: row.error,
	}
}

export interface SubscriptionRow {
	id: string
	connection_id: string
	org_id: string
	provider: string
	external_id: string
	route_key: string
	secret: string
	expires_at: Date | null
	data: Record<string, string>
}

export function toSubscription(row: SubscriptionRow): SubscriptionRecord {
	return {
		id: row.id,
		connectionId: row.connection_id,
		orgId: row.org_id,
		provider: row.provider,
		externalId: row.external_id,
		routeKey: row.route_key,
		secret: row.secret,
		expiresAt: iso(row.expires_at),
		data: row.data ?? {},
	}
}
