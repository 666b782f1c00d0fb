import type { DocumentRecord, ListDocumentsQuery, Scope } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { documentConditions } from './document-conditions.ts'
import { chronological } from './document-order.ts'
import { Params } from './params.ts'
import { type DocumentRow, toDocument } from './rows.ts'

const SORT_COLUMNS = { createdAt: 'created', updatedAt: 'updated' } as const
const DIRECTIONS = { asc: 'ASC', desc: 'DESC' } as const

export async function listDocuments(
	db: Db,
	scope: Scope,
	query: ListDocumentsQuery,
): Promise<{ documents: DocumentRecord[]; total: number }> {
	const params = new Params()
	const where = documentConditions(scope.orgId, query, params).join(' AND ')
	const countParams = [...params.values]
	const direction = DIRECTIONS[query.order]
	const limit = params.add(query.limit)
	const offset = params.add((Math.max(1, query.page) - 1) * query.limit)
	const [rows, [count]] = await Promise.all([
		db.query<DocumentRow>(
			`SELECT d.* FROM documents d WHERE ${where}
			ORDER BY ${chronological(SORT_COLUMNS[query.sort], direction)}
			LIMIT ${limit} OFFSET ${offset}`,
			params.values,
		),
		db.query<{ total: number }>(`SELECT count(*)::int AS total FROM documents d WHERE ${where}`, countParams),
	])
	return { documents: rows.map(toDocument), total: count!.total }
}

/** Documents of the org still on their way through the pipeline, oldest first. */
export async function processingDocuments(db: Db, scope: Scope): Promise<DocumentRecord[]> {
	const rows = await db.query<DocumentRow>(
		`SELECT * FROM documents WHERE org_id = $1 AND status NOT IN ('done', 'failed') ORDER BY ${chronological('created', 'ASC', 'documents')}`,
		[scope.orgId],
	)
	return rows.map(toDocument)
}
