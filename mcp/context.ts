import type { McpServer } from '@modelcontextprotocol/server'
import type { McpCaller } from './caller.ts'
import type { McpDeps } from './deps.ts'

/** What every tool's, resource's and prompt's `register` receives. */
export interface McpContext {
	server: McpServer
	deps: McpDeps
	caller: McpCaller
}
