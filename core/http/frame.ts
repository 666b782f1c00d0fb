import { Elysia } from 'elysia'
import { ServiceError } from '../errors.ts'
import type { Logger } from '../logger.ts'
import { rememberAddress } from './client-address.ts'
import { apiDocs, v5ApiDocs } from './docs.ts'
import { errorHandling } from './errors.ts'
import { checkDeclaredSize, guardBody } from './guards/request-size.ts'

export interface FrameOptions {
	logger: Logger
	maxBodyBytes: number
	/** Largest file POST /v3/documents/file takes (its body may be that plus the form's other fields). */
	maxUploadBytes?: number
	/** True once storage and workers are up; the health check reports it. */
	ready: () => boolean
}

/** When each request arrived, for its Server-Timing header. */
const arrivedAt = new WeakMap<Request, number>()

/**
 * What every surface shares, on the root instance: JSON errors, body size guards, Server-Timing, the public service
 * information, health check and API docs. Surfaces (`restApi`, MCP, the console) are `.use`d after it.
 */
export function httpFrame(options: FrameOptions) {
	return (
		// normalize: false makes unknown request fields an error instead of silently dropping them.
		new Elysia({ normalize: false })
			.use(errorHandling(options.logger))
			.onRequest((context) => {
				context.set.headers['x-content-type-options'] = 'nosniff'
				// No page of this service (Swagger UI included) is meant to be shown inside another site's frame.
				context.set.headers['x-frame-options'] = 'DENY'
				// A request whose Host Bun cannot parse has only its path as url: refused before anything builds a URL of it.
				if (!URL.canParse(context.request.url)) {
					throw new ServiceError(400, 'Bad request', 'the Host header is missing or malformed')
				}
				checkDeclaredSize(context.request, options)
				const original = context.request
				context.request = guardBody(original, options)
				rememberAddress(context.server, original, context.request)
				arrivedAt.set(context.request, performance.now())
			})
			// Server time of every successful request (browsers' developer tools and the benches read it); error responses
			// are built by the error handler and carry none.
			.onAfterHandle({ as: 'global' }, ({ request, set }) => {
				const arrived = arrivedAt.get(request)
				if (arrived !== undefined) set.headers['server-timing'] = `app;dur=${(performance.now() - arrived).toFixed(1)}`
			})
			.get('/', () => ({ name: 'memory-service', docs: '/swagger', openapi: '/openapi.json' }), {
				detail: { tags: ['health'], summary: 'Service information', security: [] },
			})
			.get(
				'/health',
				({ set }) => {
					const ready = options.ready()
					if (!ready) set.status = 503
					return { status: ready ? 'ok' : 'starting' }
				},
				{ detail: { tags: ['health'], summary: 'Health check (no key needed)', security: [] } },
			)
			.use(apiDocs())
			.use(v5ApiDocs())
	)
}
