import type { ItemRetry } from '../plugins/connector.ts'

/** One item could not be read; `retry` says whether reading it again may help (default: it may). */
export class ItemError extends Error {
	readonly retry: ItemRetry
	constructor(message: string, options: { retry?: ItemRetry; cause?: unknown } = {}) {
		super(message, options.cause === undefined ? undefined : { cause: options.cause })
		this.name = 'ItemError'
		this.retry = options.retry ?? 'transient'
	}
}

/**
 * The provider's rate limit lasts longer than a run waits: core keeps the last checkpoint, ends the run as
 * `rate_limited` and starts the next one at `resetAt`.
 */
export class RateLimitedError extends Error {
	readonly resetAt: Date
	readonly status = 429
	constructor(resetAt: Date, message?: string) {
		super(message ?? `the provider's rate limit lasts until ${resetAt.toISOString()}`)
		this.name = 'RateLimitedError'
		this.resetAt = resetAt
	}
}

/** The grant lacks permissions the connector needs: the connection says which, and needs authorizing again. */
export class InsufficientScopeError extends Error {
	readonly missing: string[]
	readonly status = 403
	constructor(missing: string[], message?: string) {
		super(
			message ??
				(missing.length > 0
					? `the grant lacks the permission ${missing.join(', ')}: authorize the connection again and grant it`
					: 'the grant lacks a permission the connector needs: authorize the connection again and grant it'),
		)
		this.name = 'InsufficientScopeError'
		this.missing = missing
	}
}

/** The provider forbids one item or one scope (not a rate limit, not the whole grant): only that item or scope fails. */
export class ForbiddenError extends Error {
	readonly status = 403
	constructor(message: string, options: { cause?: unknown } = {}) {
		super(message, options.cause === undefined ? undefined : { cause: options.cause })
		this.name = 'ForbiddenError'
	}
}

/** A provider answer a connector cannot use as is (a refused token, after retries an outage), with its status. */
export class ProviderHttpError extends Error {
	readonly status: number
	readonly headers: Headers
	readonly body: string
	constructor(status: number, headers: Headers, body: string, message?: string) {
		super(message ?? `the provider answered ${status}${body ? `: ${body.slice(0, 200)}` : ''}`)
		this.name = 'ProviderHttpError'
		this.status = status
		this.headers = headers
		this.body = body
	}
}

/** The HTTP status an error carries: `status` (fetch, Octokit, gaxios) or `statusCode` (Microsoft Graph). */
export function statusOf(error: unknown): number | undefined {
	if (error === null || typeof error !== 'object') return undefined
	const { status, statusCode, response } = error as {
		status?: unknown
		statusCode?: unknown
		response?: { status?: unknown }
	}
	for (const value of [status, statusCode, response?.status]) if (typeof value === 'number') return value
	return undefined
}
