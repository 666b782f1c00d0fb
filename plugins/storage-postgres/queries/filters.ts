import {
	type FilterCondition,
	type FilterExpression,
	isFilterGroup,
	type NumericOperator,
	type QueryFilter,
} from '../../../core/index.ts'
import type { Params } from './params.ts'

/** How JSON or a numeric string writes a number; the same pattern guards the cast to numeric in SQL. */
const NUMBER_PATTERN = '^\\s*[-+]?(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?\\s*$'
const NUMBER = new RegExp(NUMBER_PATTERN)

const OPERATORS: Record<NumericOperator, string> = { '>': '>', '<': '<', '>=': '>=', '<=': '<=', '=': '=' }

/**
 * Compiles a QueryFilter to a boolean SQL expression over a jsonb metadata column. Keys and values travel as
 * parameters; the only text spliced in is the column expression and operators from a fixed table.
 */
export function filterSql(filter: QueryFilter, metadata: string, params: Params): string {
	return expression(filter, metadata, params)
}

function expression(expr: FilterExpression, metadata: string, params: Params): string {
	if (!isFilterGroup(expr)) return condition(expr, metadata, params)
	const [operator, members] = 'AND' in expr ? (['AND', expr.AND] as const) : (['OR', expr.OR] as const)
	// An empty group constrains nothing.
	if (members.length === 0) return 'true'
	return `(${members.map((member) => expression(member, metadata, params)).join(` ${operator} `)})`
}

/**
 * NULL (missing key, wrong type) counts as false, so a negated condition matches documents without the key. A numeric
 * condition on a value that is no number matches nothing (its negation everything).
 */
function condition(c: FilterCondition, metadata: string, params: Params): string {
	if (c.filterType === 'numeric' && !NUMBER.test(c.value)) return c.negate ? 'true' : 'false'
	const test = TESTS[c.filterType](c, { metadata, key: params.add(c.key), params })
	return c.negate ? `NOT coalesce(${test}, false)` : `coalesce(${test}, false)`
}

interface Operand {
	metadata: string
	/** Placeholder of the key. */
	key: string
	params: Params
}

const TESTS: Record<FilterCondition['filterType'], (c: FilterCondition, operand: Operand) => string> = {
	metadata: (c, { metadata, key, params }) => {
		const equals = comparer(c, params.add(c.value))
		return `((${isScalar(metadata, key)} AND ${equals(`${metadata} ->> ${key}::text`)}) OR ${anyElement(metadata, key, equals)})`
	},
	array_contains: (c, { metadata, key, params }) => anyElement(metadata, key, comparer(c, params.add(c.value))),
	string_contains: (c, { metadata, key, params }) => {
		const fold = (sql: string) => (c.ignoreCase ? `lower(${sql})` : sql)
		return `(${isScalar(metadata, key)} AND strpos(${fold(`${metadata} ->> ${key}::text`)}, ${fold(`${params.add(c.value)}::text`)}) > 0)`
	},
	numeric: (c, { metadata, key, params }) => {
		const field = `${metadata} -> ${key}::text`
		const text = `${metadata} ->> ${key}::text`
		// CASE decides before casting, so text that is not a number never reaches the cast.
		const stored = `(CASE WHEN jsonb_typeof(${field}) = 'number' THEN (${text})::numeric
			WHEN jsonb_typeof(${field}) = 'string' AND ${text} ~ ${params.add(NUMBER_PATTERN)}::text THEN (${text})::numeric END)`
		return `(${stored} ${OPERATORS[c.numericOperator]} ${params.add(c.value.trim())}::numeric)`
	},
}

function comparer(c: FilterCondition, value: string): (sql: string) => string {
	return c.ignoreCase ? (sql) => `lower(${sql}) = lower(${value}::text)` : (sql) => `${sql} = ${value}::text`
}

function isScalar(metadata: string, key: string): string {
	return `jsonb_typeof(${metadata} -> ${key}::text) IN ('string', 'number', 'boolean')`
}

/** True when the stored value is an array with an element satisfying `test`. */
function anyElement(metadata: string, key: string, test: (element: string) => string): string {
	const field = `${metadata} -> ${key}::text`
	return `EXISTS (SELECT 1 FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(${field}) = 'array' THEN ${field} END) AS element(value) WHERE ${test('element.value')})`
}
