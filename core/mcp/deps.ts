import type { ProfileService } from '../containers/profile.ts'
import type { ContainerService } from '../containers/service.ts'
import type { DocumentService } from '../documents/service.ts'
import type { RouteDeps } from '../http/route-deps.ts'
import type { Logger } from '../logger.ts'
import type { MemoryService } from '../memory/service.ts'
import type { MemorySearch } from '../search/memory-search.ts'
import type { UsageMeter } from '../usage/meter.ts'

/** Exactly the services the MCP tools, resources and prompt call; the same objects the REST routes use. */
export interface McpDeps {
	documents: Pick<DocumentService, 'add' | 'get' | 'list'>
	memories: Pick<MemoryService, 'list' | 'forget' | 'forgetMatching'>
	memorySearch: MemorySearch
	profiles: ProfileService
	containers: Pick<ContainerService, 'list'>
	usage: Pick<UsageMeter, 'assertWithinQuota' | 'record'>
	logger: Logger
}

/** The one wiring spot: MCP reuses the services built for the HTTP routes. */
export function mcpDepsFrom(routes: RouteDeps, logger: Logger): McpDeps {
	return {
		documents: routes.documents,
		memories: routes.memories,
		memorySearch: routes.memorySearch,
		profiles: routes.profiles,
		containers: routes.containers,
		usage: routes.usage,
		logger,
	}
}
