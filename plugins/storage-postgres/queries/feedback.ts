import type { FeedbackRecord, FeedbackStore } from '../../../core/index.ts'
import type { Db } from '../db.ts'

interface FeedbackRow {
	id: string
	org_id: string
	key_id: string
	type: FeedbackRecord['type']
	title: string
	description: string
	endpoint: string | null
	request_id: string | null
	expected: string | null
	actual: string | null
	client: string | null
	contact_email: string | null
	created_at: Date
}

const TODAY = "date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'"

function toFeedback(row: FeedbackRow): FeedbackRecord {
	const optional = {
		endpoint: row.endpoint,
		requestId: row.request_id,
		expected: row.expected,
		actual: row.actual,
		client: row.client,
		contactEmail: row.contact_email,
	}
	return {
		id: row.id,
		orgId: row.org_id,
		keyId: row.key_id,
		type: row.type,
		title: row.title,
		description: row.description,
		...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== null)),
		createdAt: row.created_at,
	}
}

export function feedbackStore(db: () => Db): FeedbackStore {
	return {
		add(orgId, report, maxPerDay) {
			return db().transaction(async (tx) => {
				// One organization's submissions are counted in turn, so two at once cannot both take the last one.
				await tx.query("SELECT pg_advisory_xact_lock(hashtext('memory-service:feedback:' || $1))", [orgId])
				const [sent] = await tx.query<{ count: number }>(
					`SELECT count(*)::int AS count FROM feedback WHERE org_id = $1 AND created_at >= ${TODAY}`,
					[orgId],
				)
				const today = sent?.count ?? 0
				if (today >= maxPerDay) return null
				const [row] = await tx.query<FeedbackRow>(
					`INSERT INTO feedback (id, org_id, key_id, type, title, description, endpoint, request_id, expected, actual,
						client, contact_email)
					VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING *`,
					[
						report.id,
						orgId,
						report.keyId,
						report.type,
						report.title,
						report.description,
						report.endpoint ?? null,
						report.requestId ?? null,
						report.expected ?? null,
						report.actual ?? null,
						report.client ?? null,
						report.contactEmail ?? null,
					],
				)
				return { feedback: toFeedback(row!), remaining: maxPerDay - today - 1 }
			})
		},
		async list(orgId, { limit, offset }) {
			const rows = await db().query<FeedbackRow & { total: number }>(
				`SELECT *, count(*) OVER ()::int AS total FROM feedback WHERE org_id = $1
				ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
				[orgId, limit, offset],
			)
			if (rows.length === 0 && offset > 0) {
				const [row] = await db().query<{ total: number }>(
					'SELECT count(*)::int AS total FROM feedback WHERE org_id = $1',
					[orgId],
				)
				return { feedback: [], total: row?.total ?? 0 }
			}
			return { feedback: rows.map(toFeedback), total: rows[0]?.total ?? 0 }
		},
	}
}
