import type { ProfileService } from '../core/containers/profile.ts'
import type { ContainerService } from '../core/containers/service.ts'
import type { DocumentService } from '../core/documents/service.ts'
import type { Logger } from '../core/logger.ts'
import type { MemoryService } from '../core/memory/service.ts'
import type { MemorySearch } from '../core/search/memory-search.ts'
import type { Services } from '../core/services.ts'
import type { UsageMeter } from '../core/usage/meter.ts'

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
