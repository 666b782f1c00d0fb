import { dirname, join } from 'node:path'
import { openapi } from '@elysiajs/openapi'
import { Elysia } from 'elysia'

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
				exclude: { paths: ['/swagger/assets/:name'] },
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
							'Self-hosted memory and knowledge service speaking the Supermemory API (v3 and v4). Authorize with your API key.',
					},
					tags: API_TAGS,
					components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
					security: [{ bearerAuth: [] }],
				},
			}),
		)
}
