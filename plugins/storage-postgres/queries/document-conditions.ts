import type { QueryFilter } from '../../../core/index.ts'
import { filterSql } from './filters.ts'
import { likePrefix, type Params } from './params.ts'

/** `filepath` selects one path, or every path under it when it ends with '/'. */
export function filepathSql(column: string, filepath: string, params: Params): string {
	return filepath.endsWith('/')
		? `${column} LIKE ${params.add(likePrefix(filepath))}`
		: `${column} = ${params.add(filepath)}`
}

export interface DocumentSelection {
	containerTags?: string[] | null
	filters?: QueryFilter
	filepath?: string
}

/** WHERE conditions on documents (alias `d`) of one org, shared by listing and bulk deletion. */
export function documentConditions(orgId: string, selection: DocumentSelection, params: Params): string[] {
	const conditions = [`d.org_id = ${params.add(orgId)}`]
	if (selection.containerTags) conditions.push(`d.container_tag = ANY(${params.add(selection.containerTags)}::text[])`)
	conditions.push(...metadataConditions(selection, params))
	return conditions
}

/** The conditions that need the document row (filters and filepath), also used by chunk search. */
export function metadataConditions(selection: DocumentSelection, params: Params): string[] {
	const conditions: string[] = []
	if (selection.filters) conditions.push(filterSql(selection.filters, 'd.metadata', params))
	if (selection.filepath !== undefined) conditions.push(filepathSql('d.filepath', selection.filepath, params))
	return conditions
}
