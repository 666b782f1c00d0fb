import type { Scope } from '../../../core/index.ts'
import type { Db } from '../db.ts'

export async function recordLines(db: Db, documentId: string, fingerprints: string[]): Promise<void> {
	await db.query(
		`WITH gone AS (
			DELETE FROM document_lines WHERE document_id = $1 AND NOT (fingerprint = ANY($2::text[]))
		)
		INSERT INTO document_lines (fingerprint, document_id)
		SELECT print, $1 FROM unnest($2::text[]) AS print
		WHERE EXISTS (SELECT 1 FROM documents WHERE id = $1)
		ON CONFLICT DO NOTHING`,
		[documentId, fingerprints],
	)
}

export async function repeatedLines(
	db: Db,
	scope: Scope,
	containerTag: string,
	fingerprints: string[],
	minDocuments: number,
): Promise<Set<string>> {
	if (fingerprints.length === 0) return new Set()
	const rows = await db.query<{ fingerprint: string }>(
		`SELECT l.fingerprint FROM document_lines l
		JOIN documents d ON d.id = l.document_id
		WHERE l.fingerprint = ANY($3::text[]) AND d.org_id = $1 AND d.container_tag = $2
		GROUP BY l.fingerprint
		HAVING count(*) >= $4`,
		[scope.orgId, containerTag, fingerprints, minDocuments],
	)
	return new Set(rows.map((row) => row.fingerprint))
}
