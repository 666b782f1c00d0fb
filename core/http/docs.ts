import { dirname, join } from 'node:path'
import { openapi } from '@elysiajs/openapi'
import { Elysia } from 'elysia'
import { V5_TAG_DESCRIPTIONS } from './v5/tags.ts'

const SWAGGER_ASSETS = dirname(Bun.resolveSync('swagger-ui-dist/package.json', import.meta.dir))
const ASSET_NAMES = new Set(['swagger-ui-bundle.js', 'swagger-ui.css'])

/** The operation groups of /openapi.json, in the order Swagger UI lists them. */
export const API_TAGS = [
	{ name: 'health', description: 'Service information and health check; no key needed' },
	{
		name: 'documents',
		description:
			'Add text, URLs, files and batches; each is processed in the background (queued → done) into searchable chunks and memories',
	},
	{ name: 'search', description: 'Search document chunks (v3) or memories, memories and chunks, or chunks (v4)' },
	{ name: 'memories', description: 'Write, version, list and forget memories directly' },
	{
		name: 'conversations',
		description: 'Send a chat as messages; re-sending it with more turns extracts only the new ones',
	},
	{ name: 'profile', description: "A container's lasting facts, recent context and buckets, with an optional search" },
	{ name: 'container-tags', description: 'Containers (users, projects, tenants): list, describe, delete and merge' },
	{ name: 'settings', description: "The organization's settings, profile buckets and OAuth applications; reset" },
	{ name: 'usage', description: "The organization's usage counters per day" },
	{ name: 'feedback', description: 'The feedback reports the organization sent through v5 POST /feedback' },
	{
		name: 'connections',
		description:
			'Connections to providers (GitHub, ...): authorize, choose resources, sync on schedule, webhook or demand; sync runs',
	},
	{
		name: 'keys',
		description: "The organization's API keys: create (optionally expiring or restricted), list, revoke",
	},
]

/** OpenAPI document at /openapi.json and Swagger UI at /swagger, served from local files so it works offline. */
export function apiDocs() {
	return new Elysia()
		.get(
			'/swagger/assets/:name',
			({ params, status }) =>
				ASSET_NAMES.has(params.name) ? Bun.file(join(SWAGGER_ASSETS, params.name)) : status(404),
			{ detail: { hide: true } },
		)
		.use(
			openapi({
				path: '/swagger',
				specPath: '/openapi.json',
				provider: 'swagger-ui',
				// The /v5 copies of the v5 routes are the same operations as the root ones.
				exclude: { paths: ['/swagger/assets/:name', /^\/v5\//] },
				swagger: {
					cdn: '/swagger/assets/swagger-ui-bundle.js',
					theme: '/swagger/assets/swagger-ui.css',
					persistAuthorization: true,
				},
				documentation: {
					openapi: '3.1.0',
					info: {
						title: 'Memory service',
						version: '3.0.0',
						description:
							'Self-hosted memory and knowledge service speaking the Supermemory API (v3, v4 and the namespace-first v5 at the root paths /ns, /connectors, /organization, /feedback). Authorize with your API key.',
					},
					tags: [...API_TAGS, ...V5_TAG_DESCRIPTIONS],
					components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
					security: [{ bearerAuth: [] }],
				},
			}),
		)
}

/** The v5 operations alone, at /v5/openapi (where the Supermemory v5 spec is published), with Swagger UI at /v5/swagger. */
export function v5ApiDocs() {
	return new Elysia().use(
		openapi({
			path: '/v5/swagger',
			specPath: '/v5/openapi',
			provider: 'swagger-ui',
			exclude: { paths: ['/swagger/assets/:name', /^\/v5\//], tags: API_TAGS.map((tag) => tag.name) },
			swagger: {
				cdn: '/swagger/assets/swagger-ui-bundle.js',
				theme: '/swagger/assets/swagger-ui.css',
				persistAuthorization: true,
			},
			documentation: {
				openapi: '3.1.0',
				info: {
					title: 'Memory service: Supermemory v5 API',
					version: '5.0.1',
					description:
						'The namespace-first v5 API: a namespace is a container tag of the v3/v4 API, on the same data. Authorize with your API key.',
				},
				tags: V5_TAG_DESCRIPTIONS,
				components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
				security: [{ bearerAuth: [] }],
			},
		}),
	)
}
