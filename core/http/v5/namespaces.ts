import { Elysia } from 'elysia'
import { canSeeTag, requireUnrestricted } from '../../auth/restriction.ts'
import { badRequest } from '../../errors.ts'
import { bearerAuth } from '../auth.ts'
import type { RouteDeps } from '../route-deps.ts'
import { namespaceFor, nullsAsAbsent } from './access.ts'
import { documented, NamespaceDetails, NamespaceList, Organization } from './responses.ts'
import {
	NamespaceDeleteQuery,
	NamespaceParams,
	NamespacePatchBody,
	OrganizationPatchBody,
	PageQuery,
} from './schemas.ts'
import { V5_TAGS } from './tags.ts'

/** Stored timestamps as v5 writes them (UTC, Z). */
const utc = (value: string) => new Date(value).toISOString()

/** Namespaces are the container tags: list with counts, settings (supportingContext), delete or move; the organization. */
export function namespaceRoutes({ verify, containers, settings }: RouteDeps) {
	const details = async (scope: { orgId: string }, namespace: string) => {
		const tag = await containers.get(scope, namespace)
		return {
			namespace,
			supportingContext: tag.entityContext,
			system: { createdAt: utc(tag.createdAt), updatedAt: utc(tag.updatedAt) },
		}
	}
	async function list(
		scope: { orgId: string },
		principal: Parameters<typeof canSeeTag>[0],
		query: { page?: number; limit?: number },
	) {
		const page = query.page ?? 1
		const limit = query.limit ?? 10
		const all = (await containers.list(scope))
			.filter((tag) => canSeeTag(principal, tag.containerTag))
			.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.containerTag.localeCompare(b.containerTag))
		return {
			namespaces: all.slice((page - 1) * limit, page * limit).map((tag) => ({
				id: tag.containerTag,
				namespace: tag.containerTag,
				documentCount: tag.documentCount,
				memoryCount: tag.memoryCount,
				description: tag.name,
				system: { createdAt: utc(tag.createdAt), updatedAt: utc(tag.updatedAt) },
			})),
			pagination: { currentPage: page, limit, totalItems: all.length, totalPages: Math.ceil(all.length / limit) },
		}
	}

	return new Elysia()
		.use(bearerAuth(verify))
		.use(nullsAsAbsent())
		.get('/ns', ({ query, scope, principal }) => list(scope, principal, query), {
			query: PageQuery,
			detail: {
				tags: [V5_TAGS.namespaces],
				operationId: 'getNs',
				...documented(200, NamespaceList, 'Namespaces, newest first'),
				summary: 'Namespaces with document and memory counts, newest first',
			},
		})
		.get('/namespaces', ({ query, scope, principal }) => list(scope, principal, query), {
			query: PageQuery,
			detail: {
				tags: [V5_TAGS.namespaces],
				operationId: 'getNamespaces',
				...documented(200, NamespaceList, 'Namespaces, newest first'),
				summary: 'Alias of GET /ns',
			},
		})
		.get(
			'/ns/:namespace',
			({ params, scope, principal }) => details(scope, namespaceFor(principal, params.namespace)),
			{
				params: NamespaceParams,
				detail: {
					tags: [V5_TAGS.namespaces],
					operationId: 'getNsByNamespace',
					...documented(200, NamespaceDetails, 'Namespace settings', [404]),
					summary: "A namespace's settings (404 when it holds nothing)",
				},
			},
		)
		.patch(
			'/ns/:namespace',
			async ({ params, body, scope, principal }) => {
				const namespace = namespaceFor(principal, params.namespace)
				await containers.get(scope, namespace)
				if (body.supportingContext !== undefined) {
					await containers.update(scope, namespace, { entityContext: body.supportingContext })
				}
				return details(scope, namespace)
			},
			{
				params: NamespaceParams,
				body: NamespacePatchBody,
				detail: {
					tags: [V5_TAGS.namespaces],
					operationId: 'patchNsByNamespace',
					...documented(200, NamespaceDetails, 'Namespace settings', [404]),
					summary: "Set the namespace's supportingContext (null clears it)",
				},
			},
		)
		.delete(
			'/ns/:namespace',
			async ({ params, query, scope, principal, set }) => {
				const namespace = namespaceFor(principal, params.namespace)
				if (query.moveTo === undefined) {
					return { status: 'deleted' as const, namespace, ...(await containers.delete(scope, namespace)) }
				}
				const moveTo = namespaceFor(principal, query.moveTo)
				if (moveTo === namespace) throw badRequest('moveTo must name another namespace')
				const merge = await containers.merge(scope, { containerTags: [namespace], targetContainerTag: moveTo })
				set.status = 202
				return { status: 'queued' as const, operationId: merge.id, namespace, moveTo }
			},
			{
				params: NamespaceParams,
				query: NamespaceDeleteQuery,
				detail: {
					tags: [V5_TAGS.namespaces],
					operationId: 'deleteNsByNamespace',
					summary: 'Delete a namespace and its content, or with ?moveTo= move everything there first (202)',
				},
			},
		)
		.get('/organization', async ({ scope, principal }) => organization(scope, principal), {
			detail: {
				tags: [V5_TAGS.organization],
				operationId: 'getOrganization',
				...documented(200, Organization, 'The organization'),
				summary: "The organization's context and how many namespaces it has",
			},
		})
		.patch(
			'/organization',
			async ({ body, scope, principal }) => {
				requireUnrestricted(principal, 'changing the organization')
				await settings.update(scope, { workspacePrompt: body.organizationalContext })
				return organization(scope, principal)
			},
			{
				body: OrganizationPatchBody,
				detail: {
					tags: [V5_TAGS.organization],
					operationId: 'patchOrganization',
					...documented(200, Organization, 'The organization'),
					summary: 'Set or clear (null) the organizational context (an unrestricted key)',
				},
			},
		)

	async function organization(scope: { orgId: string }, principal: Parameters<typeof canSeeTag>[0]) {
		const [stored, tags] = await Promise.all([settings.get(scope), containers.list(scope)])
		const context = stored.workspacePrompt
		return {
			organizationalContext: typeof context === 'string' && context.length > 0 ? context : null,
			namespaceCount: tags.filter((tag) => canSeeTag(principal, tag.containerTag)).length,
		}
	}
}
