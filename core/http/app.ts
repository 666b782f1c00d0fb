import { Elysia } from 'elysia'
import { HttpError } from '../errors.ts'
import type { Logger } from '../logger.ts'
import { apiDocs } from './docs.ts'
import { errorHandling } from './errors.ts'
import type { RouteDeps } from './route-deps.ts'
import { documentRoutes } from './routes/documents.ts'
import { searchRoutes } from './routes/search.ts'
import { settingsRoutes } from './routes/settings.ts'
import { usageRoutes } from './routes/usage.ts'

const tooLarge = (bytes: number, limit: number) =>
	new HttpError(413, 'Payload too large', `the body is ${bytes} bytes; the limit is ${limit}`)

export interface AppOptions {
	logger: Logger
	maxBodyBytes: number
	/** True once storage and workers are up; the health check reports it. */
	ready: () => boolean
}

/** The HTTP surface: public health and docs, then every authenticated route. */
export function createApp(deps: RouteDeps, options: AppOptions) {
	return (
		// normalize: false makes unknown request fields an error instead of silently dropping them.
		new Elysia({ normalize: false })
			.use(errorHandling(options.logger))
			.onRequest(({ request }) => {
				const length = Number(request.headers.get('content-length') ?? 0)
				if (length > options.maxBodyBytes) throw tooLarge(length, options.maxBodyBytes)
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
			.use(documentRoutes(deps))
			.use(searchRoutes(deps))
			.use(settingsRoutes(deps))
			.use(usageRoutes(deps))
	)
}

export type App = ReturnType<typeof createApp>
