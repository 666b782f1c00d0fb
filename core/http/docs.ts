import { dirname, join } from 'node:path'
import { openapi } from '@elysiajs/openapi'
import { Elysia } from 'elysia'

const SWAGGER_ASSETS = dirname(Bun.resolveSync('swagger-ui-dist/package.json', import.meta.dir))
const ASSET_NAMES = new Set(['swagger-ui-bundle.js', 'swagger-ui.css'])

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
					components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
					security: [{ bearerAuth: [] }],
				},
			}),
		)
}
