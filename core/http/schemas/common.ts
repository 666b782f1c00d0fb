import { Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { CONTAINER_TAG_PATTERN } from '../../domain/container-tag.ts'
import { DOCUMENT_STATUSES, DOCUMENT_TYPES, DREAMING_MODES, TASK_TYPES } from '../../domain/types.ts'

export const ContainerTag = t.String({
	minLength: 1,
	maxLength: 100,
	pattern: CONTAINER_TAG_PATTERN,
	error: 'must be 1 to 100 characters of letters, digits, "_", ":" or "-"',
	description: 'Context pool (user, project or tenant). At most 100 characters of letters, digits, _ : -',
	examples: ['user_1'],
})

export const ContainerTags = t.Array(ContainerTag, { maxItems: 100 })

const MetadataValue = t.Union([t.String(), t.Number(), t.Boolean(), t.Array(t.String())])

export const MetadataIn = t.Record(t.String({ minLength: 1, maxLength: 256 }), MetadataValue, {
	error: 'must be an object whose values are strings, numbers, booleans or string arrays',
	description: 'Flat key/value metadata; values are strings, numbers, booleans or string arrays',
})

export const MetadataOut = t.Nullable(t.Record(t.String(), t.Unknown()))

export const Filters = t.Unknown({
	description:
		'QueryFilter: `{AND: [...]}` or `{OR: [...]}` of conditions `{key, value, filterType?, numericOperator?, negate?, ignoreCase?}` and nested groups (at most 5 levels), as an object or a JSON string',
})

export const DocumentStatus = t.UnionEnum([...DOCUMENT_STATUSES])
export const DocumentType = t.UnionEnum([...DOCUMENT_TYPES])
// Elysia gives t.UnionEnum its first value as a default and fills omitted fields with it: request enums opt out, so
// an omitted `dreaming` means the API's default (dynamic), not the first listed value (instant).
export const Dreaming = t.UnionEnum([...DREAMING_MODES], {
	error: 'must be "instant" or "dynamic"',
	default: undefined,
})
export const TaskType = t.UnionEnum([...TASK_TYPES], { error: 'must be "memory" or "superrag"' })

/** Page numbers and sizes arrive as numbers or numeric strings (the published clients send both). */
export const NumberLike = t.Union([t.Number(), t.String({ pattern: '^\\d+$' })], {
	error: 'must be a positive integer',
})

export const Pagination = t.Object({
	currentPage: t.Number(),
	limit: t.Number(),
	totalItems: t.Number(),
	totalPages: t.Number(),
})

export const ErrorResponse = t.Object({ error: t.String(), details: t.Optional(t.String()) })

export const errorResponses = {
	400: ErrorResponse,
	401: ErrorResponse,
	403: ErrorResponse,
	404: ErrorResponse,
	413: ErrorResponse,
	500: ErrorResponse,
}

export const DateTime = t.String({ format: 'date-time' })

/** A number from 0 to 1 (thresholds, scores). */
export const UnitInterval = (description?: string) =>
	t.Number({ minimum: 0, maximum: 1, error: 'must be a number from 0 to 1', ...(description ? { description } : {}) })

/** The query text of a search. */
export const QueryText = t.String({
	minLength: 1,
	maxLength: 10_000,
	error: 'must be at least 1 character long',
	description: 'Query text',
})

/**
 * A JSON integer from `minimum` to `maximum`. TypeBox's own type: Elysia's `t.Integer` also takes numeric strings,
 * and then reports a value out of range without the field's name.
 */
export const BoundedInteger = (
	minimum: number,
	maximum: number,
	example: number,
	error = `must be an integer from ${minimum} to ${maximum}`,
) => Type.Integer({ minimum, maximum, error, examples: [example] })

/** How many results a search returns. */
export const SearchLimit = BoundedInteger(1, 100, 10)

export { CONTAINER_TAG_PATTERN }
