import { type ConnectionStore, newId } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import {
	CONNECTION_COLUMNS,
	type ConnectionRow,
	type FailedItemRow,
	type SubscriptionRow,
	type SyncRunRow,
	toConnection,
	toFailedItem,
	toFailure,
	toSubscription,
	toSyncRun,
} from './connection-rows.ts'
import { jsonParam, likePrefix } from './params.ts'

const PATCHABLE = {
	status: 'status',
	error: 'error',
	email: 'email',
	accountId: 'account_id',
	secrets: 'secrets',
	app: 'app',
	documentLimit: 'document_limit',
} as const

export function connectionStore(db: () => Db): ConnectionStore {
	const one = async (where: string, params: unknown[]) => {
		const [row] = await db().query<ConnectionRow>(
			`SELECT ${CONNECTION_COLUMNS} FROM connections WHERE ${where}`,
			params,
		)
		return row ? toConnection(row) : null
	}
	return {
		async create(scope, input) {
			const [row] = await db().query<ConnectionRow>(
				`INSERT INTO connections (id, org_id, provider, container_tags, document_limit, metadata, redirect_url, status,
					email, secrets, app, settings, auth_nonce, auth_verifier, auth_expires_at, account_id)
				VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, $12::jsonb, $13, $14, $15, $16)
				RETURNING ${CONNECTION_COLUMNS}`,
				[
					input.id,
					scope.orgId,
					input.provider,
					input.containerTags,
					input.documentLimit,
					jsonParam(input.metadata),
					input.redirectUrl,
					input.status,
					input.email ?? null,
					input.secrets,
					input.app,
					JSON.stringify(input.settings),
					input.auth?.nonce ?? null,
					input.auth?.verifier ?? null,
					input.auth?.expiresAt ?? null,
					input.accountId ?? null,
				],
			)
			return toConnection(row!)
		},
		get: (scope, id) => one('id = $1 AND org_id = $2', [id, scope.orgId]),
		byId: (id) => one('id = $1', [id]),
		async list(scope, filter) {
			const rows = await db().query<ConnectionRow>(
				`SELECT ${CONNECTION_COLUMNS} FROM connections
				WHERE org_id = $1 AND ($2::text IS NULL OR provider = $2)
					AND ($3::text[] IS NULL OR container_tags && $3::text[])
				ORDER BY created_at DESC, id`,
				[scope.orgId, filter.provider ?? null, filter.containerTags?.length ? filter.containerTags : null],
			)
			return rows.map(toConnection)
		},
		updateSecretsLocked: (id, change) =>
			db().transaction(async (tx) => {
				const [row] = await tx.query<{ secrets: string | null }>(
					'SELECT secrets FROM connections WHERE id = $1 FOR UPDATE',
					[id],
				)
				if (!row) return undefined
				const next = await change(row.secrets)
				if (next === null) return row.secrets
				await tx.query('UPDATE connections SET secrets = $2, updated_at = now() WHERE id = $1', [id, next])
				return next
			}),
		async update(id, patch) {
			const sets: string[] = []
			const params: unknown[] = [id]
			for (const [key, column] of Object.entries(PATCHABLE)) {
				const value = patch[key as keyof typeof PATCHABLE]
				if (value === undefined) continue
				params.push(value)
				sets.push(`${column} = $${params.length}`)
			}
			if (patch.settings !== undefined) {
				params.push(JSON.stringify(patch.settings))
				sets.push(`settings = $${params.length}::jsonb`)
			}
			if (patch.cursor !== undefined) {
				params.push(jsonParam(patch.cursor))
				sets.push(`cursor = $${params.length}::jsonb`)
			}
			if (sets.length === 0) return
			await db().query(`UPDATE connections SET ${sets.join(', ')}, updated_at = now() WHERE id = $1`, params)
		},
		async delete(scope, id) {
			return db().transaction(async (tx) => {
				await tx.query('UPDATE documents SET connection_id = NULL WHERE connection_id = $1 AND org_id = $2', [
					id,
					scope.orgId,
				])
				const deleted = await tx.query('DELETE FROM connections WHERE id = $1 AND org_id = $2 RETURNING id', [
					id,
					scope.orgId,
				])
				return deleted.length > 0
			})
		},
		async consumeAuth(orgId, id, nonce) {
			// A concurrent second use waits for the row lock, then finds the nonce gone.
			return db().transaction(async (tx) => {
				const [row] = await tx.query<{ verifier: string | null }>(
					`SELECT auth_verifier AS verifier FROM connections
					WHERE id = $1 AND org_id = $2 AND auth_nonce = $3 AND auth_expires_at > now() FOR UPDATE`,
					[id, orgId, nonce],
				)
				if (!row) return null
				await tx.query(
					'UPDATE connections SET auth_nonce = NULL, auth_verifier = NULL, auth_expires_at = NULL WHERE id = $1',
					[id],
				)
				return { verifier: row.verifier }
			})
		},
		async setAuth(id, auth) {
			await db().query(
				'UPDATE connections SET auth_nonce = $2, auth_verifier = $3, auth_expires_at = $4 WHERE id = $1',
				[id, auth.nonce, auth.verifier, auth.expiresAt],
			)
		},

		async item(connectionId, externalId) {
			const [row] = await db().query<{ document_id: string; version: string | null }>(
				'SELECT document_id, version FROM connection_items WHERE connection_id = $1 AND external_id = $2',
				[connectionId, externalId],
			)
			return row ? { externalId, documentId: row.document_id, version: row.version } : null
		},
		async putItem(connectionId, item) {
			await db().query(
				`INSERT INTO connection_items (connection_id, external_id, document_id, version) VALUES ($1, $2, $3, $4)
				ON CONFLICT (connection_id, external_id) DO UPDATE SET document_id = EXCLUDED.document_id, version = EXCLUDED.version`,
				[connectionId, item.externalId, item.documentId, item.version],
			)
		},
		async removeItem(connectionId, externalId) {
			await db().query('DELETE FROM connection_items WHERE connection_id = $1 AND external_id = $2', [
				connectionId,
				externalId,
			])
		},
		async items(connectionId, prefix) {
			const rows = await db().query<{ external_id: string; document_id: string; version: string | null }>(
				`SELECT external_id, document_id, version FROM connection_items
				WHERE connection_id = $1 AND ($2::text IS NULL OR external_id LIKE $2) ORDER BY external_id`,
				[connectionId, prefix === undefined ? null : likePrefix(prefix)],
			)
			return rows.map((row) => ({ externalId: row.external_id, documentId: row.document_id, version: row.version }))
		},
		async countItems(connectionId) {
			const [row] = await db().query<{ count: number }>(
				'SELECT count(*)::int AS count FROM connection_items WHERE connection_id = $1',
				[connectionId],
			)
			return row?.count ?? 0
		},

		async startRun(connectionId, trigger) {
			const [row] = await db().query<SyncRunRow>(
				`INSERT INTO sync_runs (id, connection_id, trigger, status) VALUES ($1, $2, $3, 'running') RETURNING *`,
				[newId(), connectionId, trigger],
			)
			return toSyncRun(row!)
		},
		async updateRun(runId, patch) {
			const counts = patch.counts
			await db().query(
				`UPDATE sync_runs SET status = coalesce($2, status), error = coalesce($3, error),
					error_code = coalesce($4, error_code), added = coalesce($5, added), updated = coalesce($6, updated),
					deleted = coalesce($7, deleted), skipped = coalesce($8, skipped), failed = coalesce($9, failed),
					completed_at = CASE WHEN $10 THEN clock_timestamp() ELSE completed_at END,
					notes = coalesce($11::jsonb, notes), retry_at = coalesce($12, retry_at)
				WHERE id = $1`,
				[
					runId,
					patch.status ?? null,
					patch.error ?? null,
					patch.errorCode ?? null,
					counts?.added ?? null,
					counts?.updated ?? null,
					counts?.deleted ?? null,
					counts?.skipped ?? null,
					counts?.failed ?? null,
					patch.finished === true,
					patch.notes === undefined ? null : JSON.stringify(patch.notes),
					patch.retryAt ?? null,
				],
			)
		},
		async addFailure(runId, externalId, error, permanent = false) {
			await db().query(
				'INSERT INTO sync_failures (id, run_id, external_id, error, permanent) VALUES ($1, $2, $3, $4, $5)',
				[newId(), runId, externalId, error, permanent],
			)
		},

		async failedItems(connectionId) {
			const rows = await db().query<FailedItemRow>(
				`SELECT external_id, attempts, permanent, next_attempt_at, error FROM connection_failed_items
				WHERE connection_id = $1 ORDER BY next_attempt_at NULLS LAST, external_id`,
				[connectionId],
			)
			return rows.map(toFailedItem)
		},
		async failedItem(connectionId, externalId) {
			const [row] = await db().query<FailedItemRow>(
				`SELECT external_id, attempts, permanent, next_attempt_at, error FROM connection_failed_items
				WHERE connection_id = $1 AND external_id = $2`,
				[connectionId, externalId],
			)
			return row ? toFailedItem(row) : null
		},
		async putFailedItem(connectionId, item) {
			await db().query(
				`INSERT INTO connection_failed_items (connection_id, external_id, attempts, permanent, next_attempt_at, error)
				VALUES ($1, $2, $3, $4, $5, $6)
				ON CONFLICT (connection_id, external_id) DO UPDATE SET attempts = EXCLUDED.attempts,
					permanent = EXCLUDED.permanent, next_attempt_at = EXCLUDED.next_attempt_at, error = EXCLUDED.error,
					updated_at = now()`,
				[connectionId, item.externalId, item.attempts, item.permanent, item.nextAttemptAt, item.error],
			)
		},
		async removeFailedItem(connectionId, externalId) {
			await db().query('DELETE FROM connection_failed_items WHERE connection_id = $1 AND external_id = $2', [
				connectionId,
				externalId,
			])
		},
		async takeSyncLease(connectionId, owner, until) {
			const rows = await db().query(
				`UPDATE connections SET sync_lease_owner = $2, sync_lease_until = $3
				WHERE id = $1 AND (sync_lease_owner IS NULL OR sync_lease_owner = $2 OR sync_lease_until < clock_timestamp())
				RETURNING id`,
				[connectionId, owner, until],
			)
			return rows.length > 0
		},
		async releaseSyncLease(connectionId, owner) {
			await db().query(
				`UPDATE connections SET sync_lease_owner = NULL, sync_lease_until = NULL
				WHERE id = $1 AND sync_lease_owner = $2`,
				[connectionId, owner],
			)
		},
		async takeTurn(key, owner, holdMs, gapMs = 0) {
			const taken = await db().query(
				`INSERT INTO shared_turns (key, owner, next_at) VALUES ($1, $2, clock_timestamp() + $3 * interval '1 millisecond')
				ON CONFLICT (key) DO UPDATE SET owner = EXCLUDED.owner, next_at = EXCLUDED.next_at
				WHERE shared_turns.next_at <= clock_timestamp()
					AND shared_turns.ended_at + $4 * interval '1 millisecond' <= clock_timestamp()
				RETURNING key`,
				[key, owner, holdMs, gapMs],
			)
			if (taken.length > 0) return 0
			const [row] = await db().query<{ wait: number }>(
				`SELECT EXTRACT(EPOCH FROM (GREATEST(next_at, ended_at + $2 * interval '1 millisecond') - clock_timestamp()))
					* 1000 AS wait
				FROM shared_turns WHERE key = $1`,
				[key, gapMs],
			)
			return Math.max(1, Math.ceil(Number(row?.wait ?? 1)))
		},
		async endTurn(key, owner, nextInMs) {
			await db().query(
				`UPDATE shared_turns SET next_at = clock_timestamp() + $3 * interval '1 millisecond', ended_at = clock_timestamp()
				WHERE key = $1 AND owner = $2`,
				[key, owner, nextInMs],
			)
		},
		async connectionsOfAccount(accountId) {
			const rows = await db().query<ConnectionRow>(
				`SELECT ${CONNECTION_COLUMNS} FROM connections WHERE account_id = $1 AND status = 'active' ORDER BY id`,
				[accountId],
			)
			return rows.map(toConnection)
		},
		async interruptedConnections() {
			const rows = await db().query<{ connection_id: string; trigger: SyncRunRow['trigger'] }>(
				"SELECT DISTINCT ON (connection_id) connection_id, trigger FROM sync_runs WHERE status = 'running' ORDER BY connection_id",
			)
			return rows.map((row) => ({ connectionId: row.connection_id, trigger: row.trigger }))
		},
		async interruptRuns(connectionId) {
			const rows = await db().query(
				`UPDATE sync_runs SET status = 'interrupted', completed_at = clock_timestamp(),
					error = 'the sync stopped with its process; the next run resumed from the last checkpoint'
				WHERE connection_id = $1 AND status = 'running' RETURNING id`,
				[connectionId],
			)
			return rows.length
		},
		async runs(scope, connectionId, limit) {
			const rows = await db().query<SyncRunRow>(
				`SELECT r.* FROM sync_runs r JOIN connections c ON c.id = r.connection_id
				WHERE r.connection_id = $1 AND c.org_id = $2 ORDER BY r.started_at DESC, r.id LIMIT $3`,
				[connectionId, scope.orgId, limit],
			)
			return rows.map(toSyncRun)
		},
		async lastRuns(connectionIds) {
			if (connectionIds.length === 0) return new Map()
			const rows = await db().query<SyncRunRow>(
				`SELECT DISTINCT ON (connection_id) * FROM sync_runs WHERE connection_id = ANY($1::text[])
				ORDER BY connection_id, started_at DESC, id`,
				[connectionIds],
			)
			return new Map(rows.map((row) => [row.connection_id, toSyncRun(row)]))
		},
		async failures(scope, connectionId, runId) {
			const [run] = await db().query(
				`SELECT 1 FROM sync_runs r JOIN connections c ON c.id = r.connection_id
				WHERE r.id = $1 AND r.connection_id = $2 AND c.org_id = $3`,
				[runId, connectionId, scope.orgId],
			)
			if (!run) return null
			const rows = await db().query<Parameters<typeof toFailure>[0]>(
				'SELECT * FROM sync_failures WHERE run_id = $1 ORDER BY created_at, id',
				[runId],
			)
			return rows.map(toFailure)
		},

		async addSubscriptions(connection, subscriptions) {
			for (const subscription of subscriptions) {
				await db().query(
					`INSERT INTO webhook_subscriptions (id, connection_id, org_id, provider, external_id, route_key, secret,
						expires_at, data) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb)`,
					[
						newId(),
						connection.id,
						connection.orgId,
						connection.provider,
						subscription.externalId,
						subscription.routeKey,
						subscription.secret,
						subscription.expiresAt,
						JSON.stringify(subscription.data ?? {}),
					],
				)
			}
		},
		async subscriptions(connectionId) {
			const rows = await db().query<SubscriptionRow>(
				'SELECT * FROM webhook_subscriptions WHERE connection_id = $1 ORDER BY id',
				[connectionId],
			)
			return rows.map(toSubscription)
		},
		async subscriptionsByRoutes(provider, routeKeys) {
			if (routeKeys.length === 0) return []
			const rows = await db().query<SubscriptionRow>(
				'SELECT * FROM webhook_subscriptions WHERE provider = $1 AND route_key = ANY($2::text[]) ORDER BY id',
				[provider, routeKeys],
			)
			return rows.map(toSubscription)
		},
		async expiring(before) {
			const rows = await db().query<SubscriptionRow>(
				'SELECT * FROM webhook_subscriptions WHERE expires_at IS NOT NULL AND expires_at < $1 ORDER BY expires_at',
				[before],
			)
			return rows.map(toSubscription)
		},
		async setSubscriptionExpiry(id, expiresAt) {
			await db().query('UPDATE webhook_subscriptions SET expires_at = $2 WHERE id = $1', [id, expiresAt])
		},
		async removeSubscription(id) {
			await db().query('DELETE FROM webhook_subscriptions WHERE id = $1', [id])
		},
		async prune({ deliveriesBefore, turnsBefore, runsKept, pendingBefore }) {
			const count = async (statement: string, params: unknown[]) => {
				const [row] = await db().query<{ n: number }>(
					`WITH gone AS (${statement} RETURNING 1) SELECT count(*)::int AS n FROM gone`,
					params,
				)
				return row?.n ?? 0
			}
			return {
				deliveries: await count('DELETE FROM webhook_deliveries WHERE received_at < $1', [deliveriesBefore]),
				turns: await count('DELETE FROM shared_turns WHERE greatest(next_at, ended_at) < $1', [turnsBefore]),
				runs: await count(
					`DELETE FROM sync_runs WHERE id IN (
						SELECT id FROM (
							SELECT id, row_number() OVER (PARTITION BY connection_id ORDER BY started_at DESC, id) AS newer
							FROM sync_runs WHERE status <> 'running'
						) finished
						WHERE newer > $1
					)`,
					[runsKept],
				),
				abandoned: await count(`DELETE FROM connections WHERE status = 'pending' AND created_at < $1`, [pendingBefore]),
			}
		},
		async recordDelivery(provider, deliveryId) {
			const rows = await db().query(
				`INSERT INTO webhook_deliveries (provider, delivery_id) VALUES ($1, $2)
				ON CONFLICT DO NOTHING RETURNING delivery_id`,
				[provider, deliveryId],
			)
			return rows.length > 0
		},
	}
}
