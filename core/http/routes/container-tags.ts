import { Elysia, t } from 'elysia'
import { assertTagAllowed, canSeeTag } from '../../auth/restriction.ts'
import { notFound } from '../../errors.ts'
import type { ContainerTagSettings } from '../../plugins/container-storage.ts'
import { bearerAuth } from '../auth.ts'
import type { RouteDeps } from '../route-deps.ts'
import { errorResponses } from '../schemas/common.ts'
import {
	ContainerTagDeleteResponse,
	ContainerTagListItem,
	ContainerTagParams,
	ContainerTagPatchBody,
	ContainerTagPatchResponse,
	ContainerTagView,
	MergeBody,
	MergeResponse,
	MergeStatusResponse,
} from '../schemas/containers.ts'

const detail = { tags: ['container-tags'] }

const view = (settings: ContainerTagSettings) => ({ ...settings, memoryFilesystemPaths: null })

/** /v3/container-tags: list, settings per tag, delete with content, merge (static segments before the tag param). */
export function containerTagRoutes({ verify, containers }: RouteDeps) {
	return new Elysia({ prefix: '/v3/container-tags' })
		.use(bearerAuth(verify))
		.get(
			'/list',
			async ({ scope, principal }) =>
				(await containers.list(scope))
					.filter((tag) => canSeeTag(principal, tag.containerTag))
					.map((tag) => ({
						id: tag.containerTag,
						name: tag.name ?? tag.containerTag,
						containerTag: tag.containerTag,
						description: null,
						createdAt: tag.createdAt,
						updatedAt: tag.updatedAt,
						isExperimental: false,
						isNova: tag.containerTag.startsWith('sm_project_'),
						documentCount: tag.documentCount,
						memoryCount: tag.memoryCount,
						lastActivityAt: tag.lastActivityAt,
					})),
			{
				response: { 200: t.Array(ContainerTagListItem), ...errorResponses },
				detail: { ...detail, summary: 'Container tags with document and memory counts and last activity' },
			},
		)
		.post(
			'/merge',
			async ({ body, scope, set, principal }) => {
				for (const tag of [body.targetContainerTag, ...body.containerTags]) assertTagAllowed(principal, tag)
				const merge = await containers.merge(scope, body)
				set.status = 202
				return {
					success: true,
					status: 'queued' as const,
					mergeId: merge.id,
					targetTag: merge.targetTag,
					sourceTags: merge.sourceTags,
				}
			},
			{
				body: MergeBody,
				response: { 202: MergeResponse, ...errorResponses },
				detail: { ...detail, summary: 'Queue a merge of source tags into a target tag (202)' },
			},
		)
		.get(
			'/merge/:mergeId',
			async ({ params, scope, principal }) => {
				const merge = await containers.mergeStatus(scope, params.mergeId)
				if (![merge.targetTag, ...merge.sourceTags].every((tag) => canSeeTag(principal, tag))) throw notFound('Merge')
				return merge
			},
			{
				params: t.Object({ mergeId: t.String({ minLength: 1, maxLength: 100 }) }),
				response: { 200: MergeStatusResponse, ...errorResponses },
				detail: { ...detail, summary: 'Status and counts of a merge' },
			},
		)
		.get(
			'/:containerTag',
			async ({ params, scope, principal }) => {
				assertTagAllowed(principal, params.containerTag)
				return view(await containers.get(scope, params.containerTag))
			},
			{
				params: ContainerTagParams,
				response: { 200: ContainerTagView, ...errorResponses },
				detail: { ...detail, summary: "A tag's settings (404 when it has neither content nor settings)" },
			},
		)
		.patch(
			'/:containerTag',
			async ({ params, body, scope, principal }) => {
				assertTagAllowed(principal, params.containerTag)
				const { memoryFilesystemPaths: _hidden, profileBuckets, ...rest } = body
				const patch = {
					...rest,
					...(profileBuckets
						? { profileBuckets: profileBuckets.map((b) => ({ key: b.key, description: b.description ?? '' })) }
						: {}),
				}
				const { createdAt: _created, ...updated } = view(await containers.update(scope, params.containerTag, patch))
				return updated
			},
			{
				params: ContainerTagParams,
				body: ContainerTagPatchBody,
				response: { 200: ContainerTagPatchResponse, ...errorResponses },
				detail: {
					...detail,
					summary: "Set a tag's name, entityContext (given to extractors) and own profile buckets (re-sorts memories)",
				},
			},
		)
		.delete(
			'/:containerTag',
			async ({ params, scope, principal }) => {
				assertTagAllowed(principal, params.containerTag)
				return {
					success: true,
					containerTag: params.containerTag,
					...(await containers.delete(scope, params.containerTag)),
				}
			},
			{
				params: ContainerTagParams,
				response: { 200: ContainerTagDeleteResponse, ...errorResponses },
				detail: { ...detail, summary: 'Delete a tag with all its documents, files, memories and settings' },
			},
		)
}
