/** QueryFilter of the published API (`filters` of search, lists and profile). Input validation lives in core/http/filter-input.ts. */

export const FILTER_TYPES = ['metadata', 'numeric', 'array_contains', 'string_contains'] as const
export type FilterType = (typeof FILTER_TYPES)[number]

export const NUMERIC_OPERATORS = ['>', '<', '>=', '<=', '='] as const
export type NumericOperator = (typeof NUMERIC_OPERATORS)[number]

/** A validated, normalized condition: booleans are booleans, defaults are filled in. */
export interface FilterCondition {
	key: string
	value: string
	filterType: FilterType
	numericOperator: NumericOperator
	negate: boolean
	ignoreCase: boolean
}

export type FilterExpression = FilterCondition | { AND: FilterExpression[] } | { OR: FilterExpression[] }

/** The root is always a group. */
export type QueryFilter = { AND: FilterExpression[] } | { OR: FilterExpression[] }

export const MAX_FILTER_DEPTH = 5

export function isFilterGroup(
	expr: FilterExpression,
): expr is { AND: FilterExpression[] } | { OR: FilterExpression[] } {
	return 'AND' in expr || 'OR' in expr
}
