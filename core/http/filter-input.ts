import {
	FILTER_TYPES,
	type FilterCondition,
	type FilterExpression,
	type FilterType,
	MAX_FILTER_DEPTH,
	NUMERIC_OPERATORS,
	type NumericOperator,
	type QueryFilter,
} from '../domain/filter.ts'
import { badRequest } from '../errors.ts'
import { parseJsonText } from './guards/json-text.ts'

const MAX_GROUP_ITEMS = 100
const MAX_KEY_CHARS = 256
const CONDITION_FIELDS = ['key', 'value', 'filterType', 'numericOperator', 'negate', 'ignoreCase']
const DECIMAL_NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/

type Input = Record<string, unknown>

/**
 * Validates a QueryFilter from a request (the published API's `filters`: AND/OR groups of metadata conditions), given
 * as an object or as a JSON string of one, and returns it normalized. Every problem throws a 400 whose details name the path, such as `filters.AND[0].OR[2].key`.
 */
export function parseQueryFilter(input: unknown, field = 'filters'): QueryFilter {
	return parseGroup(typeof input === 'string' ? parseJson(input, field) : input, field, 1, field)
}

function parseJson(text: string, field: string): unknown {
	return parseJsonText(text, field, `${field} is not valid JSON`)
}

function parseGroup(input: unknown, path: string, level: number, field: string): QueryFilter {
	if (level > MAX_FILTER_DEPTH) throw badRequest(`${field} nesting is deeper than ${MAX_FILTER_DEPTH} levels`)
	if (!isObject(input)) throw badRequest(`${path} must be an object with exactly one key, AND or OR`)
	const keys = Object.keys(input)
	const operator = keys[0]
	if (keys.length !== 1 || (operator !== 'AND' && operator !== 'OR')) {
		throw badRequest(`${path} must have exactly one key, AND or OR (found: ${keys.join(', ') || 'none'})`)
	}
	const items = input[operator]
	const itemsPath = `${path}.${operator}`
	if (!Array.isArray(items) || items.length === 0) throw badRequest(`${itemsPath} must be a non-empty array`)
	if (items.length > MAX_GROUP_ITEMS) throw badRequest(`${itemsPath} must have at most ${MAX_GROUP_ITEMS} items`)
	const expressions = items.map((item, i) => parseExpression(item, `${itemsPath}[${i}]`, level, field))
	return operator === 'AND' ? { AND: expressions } : { OR: expressions }
}

function parseExpression(input: unknown, path: string, level: number, field: string): FilterExpression {
	if (isObject(input) && (Object.hasOwn(input, 'AND') || Object.hasOwn(input, 'OR')))
		return parseGroup(input, path, level + 1, field)
	if (!isObject(input) || !(Object.hasOwn(input, 'key') || Object.hasOwn(input, 'value'))) {
		throw badRequest(`${path} must be a condition (with key and value) or a group (with AND or OR)`)
	}
	return parseCondition(input, path)
}

function parseCondition(input: Input, path: string): FilterCondition {
	const unknown = Object.keys(input).find((key) => !CONDITION_FIELDS.includes(key))
	if (unknown !== undefined) throw badRequest(`${path}.${unknown} is not a condition field`)
	const condition: FilterCondition = {
		key: parseKey(input.key, `${path}.key`),
		value: parseValue(input.value, `${path}.value`),
		filterType: parseEnum(input.filterType, FILTER_TYPES, 'metadata', `${path}.filterType`) as FilterType,
		numericOperator: parseEnum(
			input.numericOperator,
			NUMERIC_OPERATORS,
			'=',
			`${path}.numericOperator`,
		) as NumericOperator,
		negate: parseBoolean(input.negate, `${path}.negate`),
		ignoreCase: parseBoolean(input.ignoreCase, `${path}.ignoreCase`),
	}
	if (condition.filterType === 'numeric' && !DECIMAL_NUMBER.test(condition.value.trim())) {
		throw badRequest(`${path}.value must be a number when filterType is numeric`)
	}
	return condition
}

function parseKey(input: unknown, path: string): string {
	if (input === undefined) throw badRequest(`${path} is required`)
	if (typeof input !== 'string' || input === '') throw badRequest(`${path} must be a non-empty string`)
	if (input.length > MAX_KEY_CHARS) throw badRequest(`${path} must be at most ${MAX_KEY_CHARS} characters`)
	return input
}

/** The value is a string; a number or boolean is accepted in its string form. */
function parseValue(input: unknown, path: string): string {
	if (input === undefined) throw badRequest(`${path} is required`)
	if (typeof input === 'string') return input
	if (typeof input === 'boolean') return String(input)
	if (typeof input === 'number' && Number.isFinite(input)) return String(input)
	throw badRequest(`${path} must be a string`)
}

function parseEnum(input: unknown, allowed: readonly string[], fallback: string, path: string): string {
	if (input === undefined) return fallback
	if (typeof input !== 'string' || !allowed.includes(input))
		throw badRequest(`${path} must be one of ${allowed.join(', ')}`)
	return input
}

function parseBoolean(input: unknown, path: string): boolean {
	if (input === undefined) return false
	if (typeof input === 'boolean') return input
	if (input === 'true' || input === 'false') return input === 'true'
	throw badRequest(`${path} must be true or false (a boolean or the string "true" or "false")`)
}

function isObject(input: unknown): input is Input {
	return typeof input === 'object' && input !== null && !Array.isArray(input)
}
