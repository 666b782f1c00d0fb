import { Elysia } from 'elysia'
import { type ConsoleBundle, createConsoleBundle } from '../console/bundle.ts'
import type { Logger } from '../logger.ts'
import { mcpDepsFrom } from '../mcp/deps.ts'
import { mcpRoutes } from '../mcp/http.ts'
import { apiDocs } from './docs.ts'
import { errorHandling } from './errors.ts'
import { checkDeclaredSize, guardBody } from './guards/request-size.ts'
import type { RouteDeps } from './route-deps.ts'
import { connectionCallbackRoutes } from './routes/connection-callbacks.ts'
import { connectionRoutes } from './routes/connections.ts'
import { consoleRoutes } from './routes/console.ts'
import { containerTagRoutes } from './routes/container-tags.ts'
import { conversationRoutes } from './routes/conversations.ts'
import { documentRoutes } from './routes/documents.ts'
import { documentBatchRoutes } from './routes/documents-batch.ts'
import { documentFileRoutes } from './routes/documents-file.ts'
import { fileRoutes } from './routes/files.ts'
import { keyRoutes } from './routes/keys.ts'
import { memoryRoutes } from './routes/memories.ts'
import { profileRoutes } from './routes/profile.ts'
import { searchRoutes } from './routes/search.ts'
import { memorySearchRoutes } from './routes/search-v4.ts'
import { settingsRoutes } from './routes/settings.ts'
import { usageRoutes } from './routes/usage.ts'

export interface AppOptions {
	logger: Logger
	maxBodyBytes: number
	/** Largest file POST /v3/documents/file takes (its body may be that plus the form's other fields). */
	maxUploadBytes?: number
	/** True once storage and workers are up; the health check reports it. */
	ready: () => boolean
	/** The MCP endpoint's allowed Host and Origin names (besides localhost and the public URL's host). */
	mcp?: { allowedHosts: string[]; allowedOrigins: string[]; publicUrl: string | null }
	/** The developer console's bundle (one is made when not given). */
	console?: ConsoleBundle
}

/** When each request arrived, for its Server-Timing header. */
const arrivedAt = new WeakMap<Request, number>()

/** The HTTP surface: public health and docs, then every authenticated route. */
export function createApp(deps: RouteDeps, options: AppOptions) {
	return (
		// normalize: false makes unknown request fields an error instead of silently dropping them.
		new Elysia({ normalize: false })
			.use(errorHandling(options.logger))
			.onRequest((context) => {
				checkDeclaredSize(context.request, options)
				context.request = guardBody(context.request, options)
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
			.use(consoleRoutes(options.console ?? createConsoleBundle({ logger: options.logger })))
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
			.use(
				mcpRoutes(mcpDepsFrom(deps, options.logger), {
					verify: deps.verify,
					allowedHosts: options.mcp?.allowedHosts ?? [],
					allowedOrigins: options.mcp?.allowedOrigins ?? [],
					publicUrl: options.mcp?.publicUrl ?? null,
					maxBodyBytes: options.maxBodyBytes,
				}),
			)
			.use(keyRoutes(deps))
	)
}

export type App = ReturnType<typeof createApp>
