import { Elysia, t } from 'elysia'
import { ServiceError } from '../../core/errors.ts'
import type { ConsoleAsset, ConsoleBundle } from './bundle.ts'

/** Only this origin: the console loads nothing from anywhere else and talks only to this service. */
const CONTENT_SECURITY_POLICY = [
	"default-src 'self'",
	"script-src 'self'",
	"style-src 'self' 'unsafe-inline'",
	"img-src 'self' data: blob:",
	"connect-src 'self'",
	"frame-ancestors 'none'",
	"base-uri 'none'",
	"form-action 'self'",
].join('; ')

function serve(asset: ConsoleAsset, request: Request): Response {
	const headers = {
		'content-type': asset.type,
		etag: asset.etag,
		'cache-control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
		'x-content-type-options': 'nosniff',
		...(asset.name === 'index.html' ? { 'content-security-policy': CONTENT_SECURITY_POLICY } : {}),
	}
	if (request.headers.get('if-none-match') === asset.etag) return new Response(null, { status: 304, headers })
	return new Response(asset.body, { headers })
}

/** The developer console at /console: a static page that signs in with an API key and uses the public API. */
export function consoleRoutes(bundle: ConsoleBundle) {
	const hidden = { detail: { hide: true } }
	return (
		new Elysia({ name: 'routes/console' })
			// Also answers /console/ (Elysia matches either); the bundle's files are referenced by absolute paths.
			.get('/console', async ({ request }) => serve((await bundle.assets()).get('index.html')!, request), hidden)
			.get(
				'/console/:name',
				async ({ params, request }) => {
					const asset = (await bundle.assets()).get(params.name)
					if (!asset) throw new ServiceError(404, 'Not found', `the console has no file ${params.name}`)
					return serve(asset, request)
				},
				{ ...hidden, params: t.Object({ name: t.String({ maxLength: 200 }) }) },
			)
	)
}
