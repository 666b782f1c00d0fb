import { assertTagAllowed, canSeeTag } from '../core/auth/restriction.ts'
import type { Principal } from '../core/auth/verifier.ts'
import { DEFAULT_CONTAINER_TAG } from '../core/documents/service.ts'
import { CONTAINER_TAG_PATTERN } from '../core/domain/container-tag.ts'
import type { Scope } from '../core/domain/types.ts'
import { ServiceError } from '../core/errors.ts'

const TAG_PATTERN = new RegExp(CONTAINER_TAG_PATTERN)

/** Request header naming the container tag a call uses when it names none (Supermemory's MCP header). */
export const CONTAINER_TAG_HEADER = 'x-sm-project'

/** Who is calling, and which container tags the call may touch. */
export interface McpCaller {
	principal: Principal
	scope: Scope
	/** The container tags the key is restricted to; null when it may use any. */
	allowedTags: string[] | null
	/** The tag used when a call names none. */
	defaultTag: string
}

/**
 * The caller of one MCP request. The default tag is the request's `x-sm-project` header, else the first tag a
 * restricted key may use, else the REST API's default (`sm_project_default`).
 */
export function callerOf(principal: Principal, headers: Headers): McpCaller {
	const allowedTags = principal.containerTags
	const header = headers.get(CONTAINER_TAG_HEADER)?.trim() || null
	const caller = {
		principal,
		scope: { orgId: principal.orgId },
		allowedTags,
		defaultTag: allowedTags?.[0] ?? DEFAULT_CONTAINER_TAG,
	}
	// The header's tag is held to the same rules as a tag a call names.
	return header ? { ...caller, defaultTag: resolveTag(caller, header) } : caller
}

/** The tag a call uses: the one it names, else the default; a restricted key gets 403 for any other (as on REST). */
export function resolveTag(caller: McpCaller, requested?: string): string {
	const tag = requested?.trim() || caller.defaultTag
	if (tag.length > 100 || !TAG_PATTERN.test(tag)) {
		throw new ServiceError(
			400,
			'Invalid request parameters',
			`containerTag "${tag}" must be 1 to 100 characters of letters, digits, "_", ":" or "-"`,
		)
	}
	assertTagAllowed(caller.principal, tag)
	return tag
}

/** Whether the caller may see a record of this tag (unrestricted keys see all of their organization's). */
export function mayUse(caller: McpCaller, tag: string): boolean {
	return canSeeTag(caller.principal, tag)
}
