import type { TUnsafe } from '@sinclair/typebox'
import { t } from 'elysia'
import type { FilterCondition, QueryFilter, FilterExpression as QueryFilterExpression } from '../../domain/filter.ts'
import { V5ValidationError } from './errors.ts'

const Field = t.String({
	minLength: 1,
	maxLength: 256,
	pattern: '^[a-zA-Z0-9_.-]+$',
	description: 'A metadata key, matched literally (a "." is part of the key)',
})
const closed = { additionalProperties: false } as const
const ops = <T extends [string, ...string[]]>(names: T) => t.UnionEnum(names, { default: undefined })

const StringEquals = t.Object(
	{ field: Field, operator: ops(['eq', 'neq']), value: t.String(), caseSensitive: t.Optional(t.Boolean()) },
	closed,
)
const ValueEquals = t.Object(
	{ field: Field, operator: ops(['eq', 'neq']), value: t.Union([t.Number(), t.Boolean()]) },
	closed,
)
const NumberCompare = t.Object({ field: Field, operator: ops(['gt', 'gte', 'lt', 'lte']), value: t.Number() }, closed)
const StringContains = t.Object(
	{
		field: Field,
		operator: ops(['contains', 'notContains']),
		value: t.String(),
		caseSensitive: t.Optional(t.Boolean()),
	},
	closed,
)
const ArrayContains = t.Object(
	{ field: Field, operator: ops(['arrayContains', 'arrayNotContains']), value: t.String() },
	closed,
)

export const MAX_OPERANDS = 200
export const MAX_LEVELS = 5

/** The typed filter: a predicate, or `and`/`or` of 1 to 200 expressions (nested at most 5 levels). */
const FilterExpressionSchema = t.Recursive(
	(Self) =>
		t.Union([
			StringEquals,
			ValueEquals,
			NumberCompare,
			StringContains,
			ArrayContains,
			t.Object(
				{ operator: ops(['and', 'or']), operands: t.Array(Self, { minItems: 1, maxItems: MAX_OPERANDS }) },
				closed,
			),
		]),
	{
		$id: 'FilterExpression',
		description:
			'A predicate {field, operator, value, caseSensitive?} (eq, neq, gt, gte, lt, lte, contains, notContains, arrayContains, arrayNotContains) or {operator: and|or, operands: [...]}',
		examples: [
			{
				operator: 'and',
				operands: [
					{ field: 'category', operator: 'eq', value: 'work' },
					{ field: 'importance', operator: 'gte', value: 0.8 },
				],
			},
		],
	},
)

/**
 * Typed as the plain Expression: Elysia's inference over the recursive union is too costly for the type checker;
 * the runtime schema (what validates requests and documents the API) is the recursive one.
 */
export const FilterExpression = FilterExpressionSchema as unknown as TUnsafe<Expression>

type Predicate = { field: string; operator: string; value: string | number | boolean; caseSensitive?: boolean }
type Group = { operator: 'and' | 'or'; operands: Expression[] }
export type Expression = Predicate | Group

const NUMERIC = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const

function leaf(p: Predicate): FilterCondition {
	const base = { key: p.field, negate: false, ignoreCase: false, numericOperator: '=' as const }
	switch (p.operator) {
		case 'eq':
		case 'neq': {
			const negate = p.operator === 'neq'
			if (typeof p.value === 'number')
				return { ...base, value: String(p.value), filterType: 'numeric', numericOperator: '=', negate }
			if (typeof p.value === 'boolean') return { ...base, value: String(p.value), filterType: 'metadata', negate }
			return { ...base, value: p.value, filterType: 'metadata', negate, ignoreCase: p.caseSensitive === false }
		}
		case 'gt':
		case 'gte':
		case 'lt':
		case 'lte':
			return { ...base, value: String(p.value), filterType: 'numeric', numericOperator: NUMERIC[p.operator] }
		case 'contains':
		case 'notContains':
			return {
				...base,
				value: String(p.value),
				filterType: 'string_contains',
				negate: p.operator === 'notContains',
				ignoreCase: p.caseSensitive === false,
			}
		default:
			return {
				...base,
				value: String(p.value),
				filterType: 'array_contains',
				negate: p.operator === 'arrayNotContains',
			}
	}
}

const isGroup = (expression: Expression): expression is Group => 'operands' in expression

function compile(expression: Expression, level: number, path: (string | number)[]): QueryFilterExpression {
	if (!isGroup(expression)) return leaf(expression)
	if (level > MAX_LEVELS) throw new V5ValidationError(`filters nest at most ${MAX_LEVELS} levels`, path)
	const members = expression.operands.map((operand, i) => compile(operand, level + 1, [...path, 'operands', i]))
	return expression.operator === 'and' ? { AND: members } : { OR: members }
}

/** The typed filter as the storage filter (validated in shape by FilterExpression; here its depth). */
export function compileFilter(expression: Expression | undefined, field = 'filter'): QueryFilter | undefined {
	if (expression === undefined) return undefined
	const compiled = compile(expression, 1, [field])
	return 'AND' in compiled || 'OR' in compiled ? (compiled as QueryFilter) : { AND: [compiled] }
}
