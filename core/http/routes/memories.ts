import { Elysia } from 'elysia'
import { assertTagAllowed, readTags } from '../../auth/restriction.ts'
import { badRequest } from '../../errors.ts'
import type { TemporalContext } from '../../memory/write.ts'
import { bearerAuth } from '../auth.ts'
import { parseQueryFilter } from '../filter-input.ts'
import type { RouteDeps } from '../route-deps.ts'
import { errorResponses } from '../schemas/common.ts'
import {
	CreateMemoriesBody,
	CreateMemoriesResponse,
	ForgetMatchingBody,
	ForgetMatchingResponse,
	ForgetMemoryBody,
	ForgetMemoryResponse,
	ListMemoriesBody,
	ListMemoriesResponse,
	UpdatedMemory,
	UpdateMemoryBody,
} from '../schemas/memories.ts'
import { createdMemory, memoryEntry, updatedMemory } from '../serialize-memory.ts'

const MAX_PAGE_SIZE = 1100
const detail = { tags: ['memories'] }
const conflictResponses = { ...errorResponses, 409: errorResponses[400] }

/** An ISO 8601 (or otherwise parseable) instant, null, or absent; anything else is a 400 naming the field. */
function instant(value: string | null | undefined, field: string): Date | null | undefined {
	if (value === undefined || value === null) return value
	const time = Date.parse(value)
	if (Number.isNaN(time)) throw badRequest(`${field} must be an ISO 8601 date-time or null`)
	return new Date(time)
}

function temporal(value: TemporalContext | undefined, field: string): TemporalContext | undefined {
	if (value?.documentDate) instant(value.documentDate, `${field}.documentDate`)
	return value
}

function positiveInt(value: number | string | undefined, field: string, fallback: number, max: number): number {
	if (value === undefined) return fallback
	const number = Number(value)
	if (!Number.isInteger(number) || number < 1 || number > max)
		throw badRequest(`${field} must be an integer from 1 to ${max}`)
	return number
}

function target(body: { id?: string; content?: string }) {
	if (body.id === undefined && body.content === undefined) throw badRequest('missing id or content')
	return { id: body.id, content: body.content }
}

/** The memories API (v4): write, list, version and forget memory entries directly. */
export function memoryRoutes({ verify, memories }: RouteDeps) {
	return new Elysia({ prefix: '/v4/memories' })
		.use(bearerAuth(verify))
		.post(
			'',
			async ({ body, scope, set, principal }) => {
				assertTagAllowed(principal, body.containerTag)
				const inputs = body.memories.map((memory, i) => ({
					content: memory.content,
					isStatic: memory.isStatic,
					metadata: memory.metadata,
					forgetAfter: instant(memory.forgetAfter, `memories[${i}].forgetAfter`),
					forgetReason: memory.forgetReason,
					temporalContext: temporal(memory.temporalContext, `memories[${i}].temporalContext`),
				}))
				if (inputs.some((input) => input.content.trim() === ''))
					throw badRequest('memories[].content must not be blank')
				const created = await memories.create(scope, body.containerTag, inputs)
				set.status = 201
				return { documentId: created.documentId, memories: created.memories.map(createdMemory) }
			},
			{
				body: CreateMemoriesBody,
				response: { 201: CreateMemoriesResponse, ...errorResponses },
				detail: {
					...detail,
					summary:
						'Write memories directly: embedded and linked like extracted ones (duplicates merge, changed facts version)',
				},
			},
		)
		.patch(
			'',
			async ({ body, scope, principal }) => {
				assertTagAllowed(principal, body.containerTag)
				const memory = await memories.update(scope, {
					containerTag: body.containerTag,
					...target(body),
					newContent: body.newContent,
					metadata: body.metadata,
					forgetAfter: instant(body.forgetAfter, 'forgetAfter'),
					forgetReason: body.forgetReason,
					temporalContext: temporal(body.temporalContext, 'temporalContext'),
				})
				return updatedMemory(memory)
			},
			{
				body: UpdateMemoryBody,
				response: { 200: UpdatedMemory, ...conflictResponses },
				detail: { ...detail, summary: 'Update a memory: creates version n+1, linked to it by `updates`' },
			},
		)
		.delete(
			'',
			async ({ body, scope, principal }) => {
				assertTagAllowed(principal, body.containerTag)
				const id = await memories.forget(scope, {
					containerTag: body.containerTag,
					...target(body),
					reason: body.reason,
				})
				return { id, forgotten: true }
			},
			{
				body: ForgetMemoryBody,
				response: { 200: ForgetMemoryResponse, ...conflictResponses },
				detail: { ...detail, summary: 'Forget one memory by id or exact content (409 when already forgotten)' },
			},
		)
		.post(
			'/forget-matching',
			async ({ body, scope, principal }) => {
				assertTagAllowed(principal, body.containerTag)
				if (body.query === undefined && body.ids === undefined) throw badRequest('give query or ids')
				if (body.query !== undefined && body.ids !== undefined) throw badRequest('give query or ids, not both')
				const result = await memories.forgetMatching(scope, {
					containerTag: body.containerTag,
					query: body.query,
					ids: body.ids,
					dryRun: body.dryRun ?? false,
					threshold: body.threshold ?? 0.5,
					maxForget: body.maxForget ?? 100,
					reason: body.reason,
				})
				const { matches, ...summary } = result
				return { ...summary, ...(result.dryRun ? { candidates: matches } : { forgotten: matches }) }
			},
			{
				body: ForgetMatchingBody,
				response: { 200: ForgetMatchingResponse, ...errorResponses },
				detail: {
					...detail,
					summary: 'Forget the memories a natural-language query matches (or given ids); dryRun previews them',
				},
			},
		)
		.post(
			'/list',
			async ({ body, scope, principal }) => {
				const page = positiveInt(body.page, 'page', 1, 1_000_000)
				const limit = positiveInt(body.limit, 'limit', 10, MAX_PAGE_SIZE)
				const { entries, total } = await memories.list(scope, {
					containerTags: readTags(principal, body.containerTags) ?? body.containerTags,
					filters: body.filters === undefined ? undefined : parseQueryFilter(body.filters),
					page,
					limit,
					sort: body.sort ?? 'createdAt',
					order: body.order ?? 'desc',
				})
				return {
					memoryEntries: entries.map(memoryEntry),
					pagination: { currentPage: page, limit, totalItems: total, totalPages: Math.ceil(total / limit) },
				}
			},
			{
				body: ListMemoriesBody,
				response: { 200: ListMemoriesResponse, ...errorResponses },
				detail: { ...detail, summary: 'List latest memories with their version history, paginated and filterable' },
			},
		)
}
