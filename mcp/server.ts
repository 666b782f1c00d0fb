import { McpServer } from '@modelcontextprotocol/server'
import type { McpCaller } from './caller.ts'
import type { McpContext } from './context.ts'
import type { McpDeps } from './deps.ts'
import { register as contextPrompt } from './prompts/context.ts'
import { register as profileResource } from './resources/profile.ts'
import { register as spacesResource } from './resources/spaces.ts'
import { register as addMemory } from './tools/add-memory.ts'
import { register as getDocument } from './tools/get-document.ts'
import { register as listDocuments } from './tools/list-documents.ts'
import { register as listMemories } from './tools/list-memories.ts'
import { register as listSpaces } from './tools/list-spaces.ts'
import { register as searchMemory } from './tools/search-memory.ts'
import { register as whoAmI } from './tools/who-am-i.ts'

const REGISTER: ((context: McpContext) => void)[] = [
	searchMemory,
	addMemory,
	listDocuments,
	getDocument,
	listMemories,
	listSpaces,
	whoAmI,
	profileResource,
	spacesResource,
	contextPrompt,
]

const INSTRUCTIONS =
	"This server is the user's persistent memory across conversations. Use its tools whenever the user wants to recall something they may have saved, inspect stored documents or extracted memories, remember new information or forget outdated information, even if they do not mention memory by name. Use the default space when none is named; resolve a named space with listSpaces and pass its key as containerTag. Saving is asynchronous: add_memory returns a document id with status queued, and getDocument shows when it is done."

/** A fresh server for one request: the tools, resources and prompt, bound to the request's caller. */
export function createMemoryMcpServer(deps: McpDeps, caller: McpCaller): McpServer {
	const server = new McpServer({ name: 'memory-service', version: '0.1.0' }, { instructions: INSTRUCTIONS })
	for (const register of REGISTER) register({ server, deps, caller })
	return server
}
