import type { Assignments } from './assignments.ts'

/** Marks a document changed: its updatedAt, and its place in the exact update order (see the document_changes sequence). */
export function touch(set: Assignments): Assignments {
	return set.raw('updated_at', 'now()').raw('updated_seq', "nextval('document_changes')")
}

/** ORDER BY terms: the timestamp, then the sequence for ties. Column names and directions come from fixed tables. */
export function chronological(column: 'created' | 'updated', direction: 'ASC' | 'DESC', alias = 'd'): string {
	return `${alias}.${column}_at ${direction}, ${alias}.${column}_seq ${direction}`
}
