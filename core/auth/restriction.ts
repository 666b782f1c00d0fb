import { badRequest, ServiceError } from '../errors.ts'
import type { Principal } from './verifier.ts'

/**
 * What a key restricted to some container tags may do. An unrestricted key (containerTags null) passes every check.
 * Writes to or explicit reads of another tag are refused with 403; a record of another tag reached by its id looks
 * exactly like one that does not exist (404), as another organization's does.
 */
const forbidden = (details: string) => new ServiceError(403, 'Forbidden', details)

function restrictedTo(principal: Principal): string {
	return (principal.containerTags ?? []).join(', ')
}

export function isRestricted(principal: Principal): boolean {
	return principal.containerTags !== null
}

export function canSeeTag(principal: Principal, tag: string): boolean {
	return principal.containerTags === null || principal.containerTags.includes(tag)
}

/** Managing keys and settings, and reading organization-wide figures, needs an unrestricted key. */
export function requireUnrestricted(principal: Principal, what: string): void {
	if (isRestricted(principal)) {
		throw forbidden(
			`${what} needs an unrestricted key; this key is restricted to container tags ${restrictedTo(principal)}`,
		)
	}
}

export function assertTagAllowed(principal: Principal, tag: string): void {
	if (!canSeeTag(principal, tag)) {
		throw forbidden(`this key is restricted to container tags ${restrictedTo(principal)}; "${tag}" is not one of them`)
	}
}

/**
 * The tag a write goes to: the given one when allowed; when none is given, a key restricted to exactly one tag
 * writes there, and one restricted to several must say which.
 */
export function writeTag(principal: Principal, tag: string | undefined): string | undefined {
	if (tag !== undefined) {
		assertTagAllowed(principal, tag)
		return tag
	}
	const allowed = principal.containerTags
	if (allowed === null) return undefined
	if (allowed.length === 1) return allowed[0]
	throw badRequest(`containerTag is required: this key is restricted to container tags ${restrictedTo(principal)}`)
}

/** The tags a read covers: the asked ones when all are allowed; when none are asked, every tag the key may see. */
export function readTags(principal: Principal, tags: string[] | null | undefined): string[] | undefined {
	if (tags && tags.length > 0) {
		for (const tag of tags) assertTagAllowed(principal, tag)
		return tags
	}
	return principal.containerTags ?? undefined
}
