import type { ValidationError } from 'elysia'

/** Paths the v5 API answers, at the root and under /v5. */
const V5_PATH = /^(\/v5)?\/(ns|namespaces|connectors|organization|feedback)(\/|$)/

export function isV5Path(pathname: string): boolean {
	return V5_PATH.test(pathname)
}

export interface ValidationIssue {
	message: string
	path: (string | number)[]
}

/** A schema failure found after Elysia's own validation (filter depth, a multipart field's JSON). */
export class V5ValidationError extends Error {
	readonly issues: ValidationIssue[]
	constructor(message: string, path: (string | number)[]) {
		super(message)
		this.issues = [{ message, path }]
	}
}

/** `/documents/0/content` → ['documents', 0, 'content']. */
function pointer(path: string | undefined): (string | number)[] {
	return (path ?? '')
		.split('/')
		.filter(Boolean)
		.map((part) => (/^\d+$/.test(part) ? Number(part) : part.replace(/~1/g, '/').replace(/~0/g, '~')))
}

/** v5's ValidationErrorResponse: every issue with the path of the field at fault. */
export function validationBody(issues: ValidationIssue[]) {
	return { success: false as const, error: issues }
}

export function issuesOf(error: ValidationError): ValidationIssue[] {
	const seen = new Set<string>()
	const issues: ValidationIssue[] = []
	for (const issue of error.all as { path?: string; message?: string; schema?: { error?: unknown } }[]) {
		const custom = issue.schema?.error
		const message = typeof custom === 'string' ? custom : (issue.message ?? 'is invalid')
		const path = [...(error.type === 'body' ? [] : [error.type]), ...pointer(issue.path)]
		const key = JSON.stringify(path)
		if (seen.has(key)) continue
		seen.add(key)
		issues.push({ message: path.length > 0 ? `${path.join('.')}: ${message}` : message, path })
		if (issues.length >= 20) break
	}
	return issues.length > 0 ? issues : [{ message: `invalid ${error.type}`, path: [] }]
}
