import type { ProfileService } from '../containers/profile.ts'
import type { ContainerService } from '../containers/service.ts'
import type { DocumentService } from '../documents/service.ts'
import type { Logger } from '../logger.ts'
import type { MemoryService } from '../memory/service.ts'
import type { MemorySearch } from '../search/memory-search.ts'
import type { Services } from '../services.ts'
import type { UsageMeter } from '../usage/meter.ts'

/** Exactly the services the MCP tools, resources and prompt call; the same objects the REST routes use. */
export interface McpDeps {
	documents: Pick<DocumentService, 'add' | 'get' | 'list' | 'text'>
	memories: Pick<MemoryService, 'list' | 'forget' | 'forgetMatching'>
	memorySearch: MemorySearch
	profiles: ProfileService
	containers: Pick<ContainerService, 'list'>
	usage: Pick<UsageMeter, 'assertWithinQuota' | 'record'>
	logger: Logger
}

/** The one wiring spot: MCP calls the shared services (`createServices`), the objects the REST routes call. */
export function mcpDepsFrom(
	services: Pick<Services, 'documents' | 'memories' | 'memorySearch' | 'profiles' | 'containers' | 'usage'>,
	logger: Logger,
): McpDeps {
	return {
		documents: services.documents,
		memories: services.memories,
		memorySearch: services.memorySearch,
		profiles: services.profiles,
		containers: services.containers,
		usage: services.usage,
		logger,
	}
}
