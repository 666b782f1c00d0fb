import { Elysia } from 'elysia'
import { orgBuckets } from '../../containers/buckets.ts'
import type { ProfileFacts } from '../../containers/profile.ts'
import { ServiceError } from '../../errors.ts'
import type { BucketDefinition } from '../../plugins/container-storage.ts'
import { bearerAuth } from '../auth.ts'
import type { RouteDeps } from '../route-deps.ts'
import { namespaceFor, nullsAsAbsent } from './access.ts'
import { V5ValidationError } from './errors.ts'
import { compileFilter } from './filter.ts'
import { documented, ProfileBuckets, ProfileResponse } from './responses.ts'
import { DeleteBucketsBody, NamespaceParams, ProfileBody, PutBucketsBody } from './schemas.ts'
import { V5_TAGS } from './tags.ts'

const BUCKET_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/

const asMap = (buckets: BucketDefinition[]) =>
	Object.fromEntries(buckets.map((bucket) => [bucket.key, bucket.description]))

function markdown(namespace: string, profile: Required<ProfileFacts>): string {
	const section = (title: string, facts: { memory: string }[]) =>
		`## ${title}\n\n${facts.length > 0 ? facts.map((fact) => `- ${fact.memory}`).join('\n') : '_Nothing yet._'}\n`
	return [
		`# Profile: ${namespace}\n`,
		section('Static', profile.static),
		section('Dynamic', profile.dynamic),
		...Object.entries(profile.buckets).map(([name, facts]) => section(`Bucket: ${name}`, facts)),
	].join('\n')
}

/** POST /ns/{namespace}/profile and the namespace's buckets (GET, PUT upserts, DELETE removes; org buckets stay). */
export function profileRoutes({ verify, profiles, containers, settings, usage }: RouteDeps) {
	async function ownBuckets(scope: { orgId: string }, namespace: string) {
		const [own, org] = await Promise.all([containers.get(scope, namespace), settings.get(scope)])
		return { own: own.profileBuckets, org: orgBuckets(org) }
	}

	function refuseOrgBuckets(org: BucketDefinition[], names: string[], verb: string) {
		const clash = names.find((name) => org.some((bucket) => bucket.key === name))
		if (clash !== undefined) {
			throw new ServiceError(409, 'Conflict', `"${clash}" is an organization-level bucket and cannot be ${verb} here`)
		}
	}

	return new Elysia()
		.use(bearerAuth(verify))
		.use(nullsAsAbsent())
		.post(
			'/ns/:namespace/profile',
			async ({ params, body, request, scope, principal, set }) => {
				const namespace = namespaceFor(principal, params.namespace)
				const facts = await profiles.facts(scope, {
					containerTag: namespace,
					filters: compileFilter(body?.filter),
					buckets: body?.buckets,
				})
				usage.record(scope.orgId, 'profiles')
				const profile = { static: facts.static ?? [], dynamic: facts.dynamic ?? [], buckets: facts.buckets ?? {} }
				if ((request.headers.get('accept') ?? '').toLowerCase().includes('text/markdown')) {
					set.headers['content-type'] = 'text/markdown; charset=utf-8'
					return markdown(namespace, profile)
				}
				return { profile }
			},
			{
				params: NamespaceParams,
				body: ProfileBody,
				detail: {
					tags: [V5_TAGS.profile],
					operationId: 'postNsByNamespaceProfile',
					...documented(200, ProfileResponse, 'The profile'),
					summary: 'Static facts, dynamic context and buckets as {id, memory}; Accept: text/markdown renders it',
				},
			},
		)
		.get(
			'/ns/:namespace/profile/buckets',
			async ({ params, scope, principal }) => ({
				buckets: asMap(await containers.buckets(scope, namespaceFor(principal, params.namespace))),
			}),
			{
				params: NamespaceParams,
				detail: {
					tags: [V5_TAGS.profile],
					operationId: 'getNsByNamespaceProfileBuckets',
					...documented(200, ProfileBuckets, 'Effective buckets'),
					summary: "Effective buckets: the organization's plus the namespace's own",
				},
			},
		)
		.put(
			'/ns/:namespace/profile/buckets',
			async ({ params, body, scope, principal }) => {
				const namespace = namespaceFor(principal, params.namespace)
				for (const name of Object.keys(body.buckets)) {
					if (!BUCKET_NAME.test(name)) {
						throw new V5ValidationError(
							`buckets: "${name}" must be 1 to 64 characters of a-z, 0-9, "_" or "-", starting with a letter or digit`,
							['buckets', name],
						)
					}
				}
				const { own, org } = await ownBuckets(scope, namespace)
				refuseOrgBuckets(org, Object.keys(body.buckets), 'changed')
				const merged = new Map(own.map((bucket) => [bucket.key, bucket]))
				for (const [key, description] of Object.entries(body.buckets)) merged.set(key, { key, description })
				if (merged.size > 50) throw new ServiceError(400, 'Invalid request', 'a namespace has at most 50 buckets')
				await containers.update(scope, namespace, { profileBuckets: [...merged.values()] })
				return { buckets: asMap(await containers.buckets(scope, namespace)) }
			},
			{
				params: NamespaceParams,
				body: PutBucketsBody,
				detail: {
					tags: [V5_TAGS.profile],
					operationId: 'putNsByNamespaceProfileBuckets',
					...documented(200, ProfileBuckets, 'Effective buckets', [404, 409]),
					summary: "Add or update the namespace's own buckets (organization buckets: 409)",
				},
			},
		)
		.delete(
			'/ns/:namespace/profile/buckets',
			async ({ params, body, scope, principal }) => {
				const namespace = namespaceFor(principal, params.namespace)
				const { own, org } = await ownBuckets(scope, namespace)
				refuseOrgBuckets(org, body.buckets, 'deleted')
				const removed = new Set(body.buckets)
				const kept = own.filter((bucket) => !removed.has(bucket.key))
				if (kept.length !== own.length) await containers.update(scope, namespace, { profileBuckets: kept })
				return { buckets: asMap(await containers.buckets(scope, namespace)) }
			},
			{
				params: NamespaceParams,
				body: DeleteBucketsBody,
				detail: {
					tags: [V5_TAGS.profile],
					operationId: 'deleteNsByNamespaceProfileBuckets',
					...documented(200, ProfileBuckets, 'Effective buckets', [404, 409]),
					summary: "Remove the namespace's own buckets (unknown names ignored; organization buckets: 409)",
				},
			},
		)
}
