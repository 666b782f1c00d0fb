import { describe, expect, it } from 'bun:test'
import type { FilterCondition } from '../../core/domain/filter.ts'
import { ServiceError } from '../../core/errors.ts'
import { parseQueryFilter } from '../../core/http/filter-input.ts'

/** The details of the 400 that parsing throws; fails the test when parsing succeeds or throws something else. */
function rejection(input: unknown, field?: string): string {
	try {
		parseQueryFilter(input, field)
	} catch (error) {
		expect(error).toBeInstanceOf(ServiceError)
		expect((error as ServiceError).status).toBe(400)
		return (error as ServiceError).details ?? ''
	}
	throw new Error('expected parseQueryFilter to reject the input')
}

const condition = (extra: Record<string, unknown> = {}) => ({ key: 'k', value: 'v', ...extra })

const normalized: FilterCondition = {
	key: 'k',
	value: 'v',
	filterType: 'metadata',
	numericOperator: '=',
	negate: false,
	ignoreCase: false,
}

/** A filter whose groups nest `levels` deep (the root is level 1), with `leaf` in the innermost group. */
function nested(levels: number, leaf: object = condition()): object {
	let group: object = { AND: [leaf] }
	for (let level = 1; level < levels; level++) group = { OR: [group] }
	return group
}

describe('parseQueryFilter', () => {
	it('normalizes a condition with defaults for the optional fields', () => {
		expect(parseQueryFilter({ AND: [{ key: 'category', value: 'news' }] })).toEqual({
			AND: [
				{
					key: 'category',
					value: 'news',
					filterType: 'metadata',
					numericOperator: '=',
					negate: false,
					ignoreCase: false,
				},
			],
		})
	})

	it('keeps the fields it is given', () => {
		const filter = parseQueryFilter({
			OR: [condition({ filterType: 'numeric', value: '1742745777', numericOperator: '>=', negate: true })],
		})
		expect(filter).toEqual({
			OR: [
				{
					key: 'k',
					value: '1742745777',
					filterType: 'numeric',
					numericOperator: '>=',
					negate: true,
					ignoreCase: false,
				},
			],
		})
	})

	it('accepts the filter as a JSON string', () => {
		const filter = parseQueryFilter(JSON.stringify({ OR: [condition({ filterType: 'string_contains' })] }))
		expect(filter).toEqual({
			OR: [
				{ key: 'k', value: 'v', filterType: 'string_contains', numericOperator: '=', negate: false, ignoreCase: false },
			],
		})
	})

	it('rejects a malformed JSON string', () => {
		expect(rejection('{"AND": [')).toBe('filters is not valid JSON')
		expect(rejection('', 'filter')).toBe('filter is not valid JSON')
	})

	it('converts string booleans to booleans', () => {
		const filter = parseQueryFilter({ AND: [condition({ negate: 'true', ignoreCase: 'false' })] })
		expect(filter).toEqual({ AND: [expect.objectContaining({ negate: true, ignoreCase: false })] })
		const other = parseQueryFilter({ AND: [condition({ negate: false, ignoreCase: true })] })
		expect(other).toEqual({ AND: [expect.objectContaining({ negate: false, ignoreCase: true })] })
	})

	it('rejects booleans that are neither booleans nor "true"/"false"', () => {
		expect(rejection({ AND: [condition({ negate: 'yes' })] })).toStartWith(
			'filters.AND[0].negate must be true or false',
		)
		expect(rejection({ AND: [condition({ ignoreCase: 1 })] })).toStartWith(
			'filters.AND[0].ignoreCase must be true or false',
		)
	})

	it('converts a number or boolean value to its string form', () => {
		const filter = parseQueryFilter({ AND: [condition({ value: 42.5 }), condition({ value: false })] })
		expect(filter).toEqual({
			AND: [expect.objectContaining({ value: '42.5' }), expect.objectContaining({ value: 'false' })],
		})
	})

	it('rejects a value that is not a string, number or boolean', () => {
		expect(rejection({ AND: [condition({ value: null })] })).toBe('filters.AND[0].value must be a string')
		expect(rejection({ AND: [condition({ value: ['a'] })] })).toBe('filters.AND[0].value must be a string')
		expect(rejection({ AND: [condition({ value: Number.POSITIVE_INFINITY })] })).toBe(
			'filters.AND[0].value must be a string',
		)
	})

	it('requires key and value', () => {
		expect(rejection({ AND: [{ value: 'v' }] })).toBe('filters.AND[0].key is required')
		expect(rejection({ AND: [{ key: 'k' }] })).toBe('filters.AND[0].value is required')
	})

	it('rejects an empty, non-string or too long key', () => {
		expect(rejection({ AND: [condition({ key: '' })] })).toBe('filters.AND[0].key must be a non-empty string')
		expect(rejection({ AND: [condition({ key: 7 })] })).toBe('filters.AND[0].key must be a non-empty string')
		expect(parseQueryFilter({ AND: [condition({ key: 'k'.repeat(256) })] })).toBeDefined()
		expect(rejection({ AND: [condition({ key: 'k'.repeat(257) })] })).toBe(
			'filters.AND[0].key must be at most 256 characters',
		)
	})

	it('rejects unknown keys in a condition', () => {
		expect(rejection({ AND: [condition({ operator: '>' })] })).toBe('filters.AND[0].operator is not a condition field')
	})

	it('rejects a filterType or numericOperator outside its enum, naming the exact path', () => {
		const filter = { AND: [{ OR: [condition(), condition(), condition({ numericOperator: '!=' })] }] }
		expect(rejection(filter)).toBe('filters.AND[0].OR[2].numericOperator must be one of >, <, >=, <=, =')
		expect(rejection({ OR: [condition({ filterType: 'regex' })] })).toBe(
			'filters.OR[0].filterType must be one of metadata, numeric, array_contains, string_contains',
		)
	})

	it('requires a numeric filter value to be a finite number', () => {
		for (const value of ['-3.5', '1e3', '.5', '1742745777']) {
			expect(parseQueryFilter({ AND: [condition({ filterType: 'numeric', value })] })).toBeDefined()
		}
		for (const value of ['abc', '', 'Infinity', '0x10', '1,5']) {
			expect(rejection({ AND: [condition({ filterType: 'numeric', value })] })).toBe(
				'filters.AND[0].value must be a number when filterType is numeric',
			)
		}
	})

	it('requires each group to have exactly one key, AND or OR', () => {
		expect(rejection({})).toBe('filters must have exactly one key, AND or OR (found: none)')
		expect(rejection({ AND: [condition()], OR: [condition()] })).toBe(
			'filters must have exactly one key, AND or OR (found: AND, OR)',
		)
		expect(rejection({ and: [condition()] })).toBe('filters must have exactly one key, AND or OR (found: and)')
		expect(rejection({ AND: [{ OR: [condition()], key: 'k' }] })).toBe(
			'filters.AND[0] must have exactly one key, AND or OR (found: OR, key)',
		)
	})

	it('rejects a root that is not an object', () => {
		for (const input of [undefined, null, [], 3, '"text"', '[1]']) {
			expect(rejection(input)).toBe('filters must be an object with exactly one key, AND or OR')
		}
	})

	it('requires a group to hold a non-empty array of at most 100 items', () => {
		expect(rejection({ AND: [] })).toBe('filters.AND must be a non-empty array')
		expect(rejection({ OR: condition() })).toBe('filters.OR must be a non-empty array')
		const hundred = Array.from({ length: 100 }, () => condition())
		expect(parseQueryFilter({ AND: hundred })).toEqual({ AND: hundred.map(() => normalized) })
		expect(rejection({ AND: Array.from({ length: 101 }, () => condition()) })).toBe(
			'filters.AND must have at most 100 items',
		)
	})

	it('rejects an item that is neither a condition nor a group', () => {
		const message = 'filters.AND[1] must be a condition (with key and value) or a group (with AND or OR)'
		expect(rejection({ AND: [condition(), 'k=v'] })).toBe(message)
		expect(rejection({ AND: [condition(), {}] })).toBe(message)
	})

	it('accepts groups nested 5 levels deep and rejects 6', () => {
		expect(parseQueryFilter(nested(5)) as object).toEqual(nested(5, normalized))
		expect(rejection(nested(6))).toBe('filters nesting is deeper than 5 levels')
	})

	it('names the field it was given in every message', () => {
		expect(rejection({ AND: [condition({ key: '' })] }, 'filter')).toBe('filter.AND[0].key must be a non-empty string')
		expect(rejection(nested(6), 'filter')).toBe('filter nesting is deeper than 5 levels')
	})
})
