import { Elysia } from 'elysia'
import { HttpError } from '../errors.ts'
import type { Logger } from '../logger.ts'
import { apiDocs } from './docs.ts'
import { errorHandling } from './errors.ts'
import type { RouteDeps } from './route-deps.ts'
import { connectionCallbackRoutes } from './routes/connection-callbacks.ts'
import { connectionRoutes } from './routes/connections.ts'
import { containerTagRoutes } from './routes/container-tags.ts'
import { conversationRoutes } from './routes/conversations.ts'
import { documentRoutes } from './routes/documents.ts'
import { documentBatchRoutes } from './routes/documents-batch.ts'
import { documentFileRoutes } from './routes/documents-file.ts'
import { fileRoutes } from './routes/files.ts'
import { memoryRoutes } from './routes/memories.ts'
import { profileRoutes } from './routes/profile.ts'
import { searchRoutes } from './routes/search.ts'
import { memorySearchRoutes } from './routes/search-v4.ts'
import { settingsRoutes } from './routes/settings.ts'
import { usageRoutes } from './routes/usage.ts'

const tooLarge = (bytes: number, limit: number) =>
	new HttpError(413, 'Payload too large', `the body is ${bytes} bytes; the limit is ${limit}`)

export interface AppOptions {
	logger: Logger
	maxBodyBytes: number
	/** Largest file POST /v3/documents/file takes (its body may be that plus the form's other fields). */
	maxUploadBytes?: number
	/** True once storage and workers are up; the health check reports it. */
	ready: () => boolean
}

/** When each request arrived, for its Server-Timing header. */
const arrivedAt = new WeakMap<Request, number>()

/** The HTTP surface: public health and docs, then every authenticated route. */
export function createApp(deps: RouteDeps, options: AppOptions) {
	return (
		// normalize: false makes unknown request fields an error instead of silently dropping them.
		new Elysia({ normalize: false })
			.use(errorHandling(options.logger))
			.onRequest(({ request }) => {
				arrivedAt.set(request, performance.now())
				const length = Number(request.headers.get('content-length') ?? 0)
				const limit = bodyLimit(request, options)
				if (length > limit) throw tooLarge(length, limit)
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
			.use(documentFileRoutes(deps))
			.use(documentBatchRoutes({ ...deps, logger: options.logger }))
			.use(documentRoutes(deps))
			.use(fileRoutes(deps))
			.use(searchRoutes(deps))
			.use(memorySearchRoutes(deps))
			.use(memoryRoutes(deps))
			.use(conversationRoutes(deps))
			.use(settingsRoutes(deps))
			.use(usageRoutes(deps))
			.use(profileRoutes(deps))
			.use(containerTagRoutes(deps))
			.use(connectionCallbackRoutes(deps))
			.use(connectionRoutes(deps))
	)
}

export type App = ReturnType<typeof createApp>

/** Room for the upload form's other fields and multipart framing. */
export const UPLOAD_FORM_OVERHEAD = 1024 * 1024

/** The body limit of a request: the upload route takes files up to the upload limit, every other route the body limit. */
function bodyLimit(request: Request, options: AppOptions): number {
	if (options.maxUploadBytes === undefined || request.method !== 'POST') return options.maxBodyBytes
	const path = request.url.slice(request.url.indexOf('/', request.url.indexOf('//') + 2)).split('?')[0]
	return path === '/v3/documents/file' ? options.maxUploadBytes + UPLOAD_FORM_OVERHEAD : options.maxBodyBytes
}
