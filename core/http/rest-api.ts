import { Elysia } from 'elysia'
import type { Logger } from '../logger.ts'
import type { RouteDeps } from './route-deps.ts'
import { connectionCallbackRoutes } from './routes/connection-callbacks.ts'
import { connectionRoutes } from './routes/connections.ts'
import { containerTagRoutes } from './routes/container-tags.ts'
import { conversationRoutes } from './routes/conversations.ts'
import { documentRoutes } from './routes/documents.ts'
import { documentBatchRoutes } from './routes/documents-batch.ts'
import { documentFileRoutes } from './routes/documents-file.ts'
import { feedbackListRoutes } from './routes/feedback.ts'
import { fileRoutes } from './routes/files.ts'
import { keyRoutes } from './routes/keys.ts'
import { memoryRoutes } from './routes/memories.ts'
import { profileRoutes } from './routes/profile.ts'
import { searchRoutes } from './routes/search.ts'
import { memorySearchRoutes } from './routes/search-v4.ts'
import { settingsRoutes } from './routes/settings.ts'
import { usageRoutes } from './routes/usage.ts'
import { v5Routes } from './v5/index.ts'

/** The Supermemory REST API (v3, v4 and v5) over the shared services; every route authenticates its own key. */
export function restApi(deps: RouteDeps, options: { logger: Logger }) {
	return new Elysia({ name: 'rest-api' })
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
		.use(feedbackListRoutes(deps))
		.use(profileRoutes(deps))
		.use(containerTagRoutes(deps))
		.use(connectionCallbackRoutes(deps))
		.use(connectionRoutes(deps))
		.use(keyRoutes(deps))
		.use(v5Routes(deps))
}
