import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/server'
import { z } from 'zod'
import { ServiceError } from '../../core/errors.ts'
import type { McpDeps } from '../deps.ts'

export const containerTagInput = z
	.string()
	.min(1)
	.max(128)
	.optional()
	.describe(
		'Space key (container tag) to use for this call. If the user names a space, call listSpaces to resolve its key and pass it here. If no space is named, omit this field so the server uses the default space.',
	)

export const pageInput = z.number().int().min(1).optional().default(1).describe('Page number, from 1')
export const limitInput = z.number().int().min(1).max(50).optional().default(10).describe('Items per page (1-50)')

export const pagination = z.object({
	currentPage: z.number(),
	limit: z.number(),
	totalItems: z.number(),
	totalPages: z.number(),
})

export const READ_ONLY: ToolAnnotations = {
	readOnlyHint: true,
	destructiveHint: false,
	idempotentHint: true,
	openWorldHint: false,
}

/** Saving adds a document; forgetting hides a memory: both change what later searches find. */
export const WRITES_MEMORY: ToolAnnotations = {
	readOnlyHint: false,
	destructiveHint: true,
	idempotentHint: false,
	openWorldHint: false,
}

/** A successful result: Markdown for the model, the same facts as structured content for the host. */
export function success<T extends Record<string, unknown>>(text: string, structured: T): CallToolResult {
	return { content: [{ type: 'text', text }], structuredContent: structured }
}

/** A failed call as a tool error carrying the API's message (never an empty success). */
export function failure(message: string): CallToolResult {
	return { content: [{ type: 'text', text: message }], isError: true }
}

/** Runs a tool body; errors become tool errors with the message the REST API would give. */
export async function guarded(deps: McpDeps, tool: string, body: () => Promise<CallToolResult>) {
	try {
		return await body()
	} catch (error) {
		if (error instanceof ServiceError)
			return failure(error.details ? `${error.message}: ${error.details}` : error.message)
		deps.logger.error('mcp tool failed', { tool, error: error instanceof Error ? error.message : String(error) })
		return failure(`${tool} failed on the server; the error is logged`)
	}
}

export const iso = (date: Date) => date.toISOString()
export const percent = (similarity: number) => `${Math.round(similarity * 100)}%`
