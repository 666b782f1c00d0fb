import {
	ConnectorAuthError,
	statusOf as coreStatusOf,
	InsufficientScopeError,
	type ProviderAnswer,
	type ProviderPolicy,
	RateLimitedError,
	type SyncContext,
	withProviderRetry,
} from '../../core/index.ts'
import { rootUrlOption } from './endpoints.ts'

/** The HTTP status of a googleapis (gaxios) error. */
export const statusOf = (error: unknown): number | undefined => coreStatusOf(error)

/**
 * Google's error reason (`userRateLimitExceeded`, `exportSizeLimitExceeded`, `insufficientPermissions`), from the
 * `errors` list or, in newer APIs, the `ErrorInfo` detail.
 */
export const reasonOf = (error: unknown): string | undefined => {
	const data = (error as { response?: { data?: unknown } } | null)?.response?.data as
		| { error?: { errors?: { reason?: string }[]; details?: { reason?: string }[] } }
		| undefined
	return data?.error?.errors?.[0]?.reason ?? data?.error?.details?.find((detail) => detail.reason)?.reason
}

/**
 * Google's rate limits: Drive answers its per-user and project limits with a 403 (`userRateLimitExceeded`,
 * `rateLimitExceeded`, `sharingRateLimitExceeded`) and further checks with a 429; Gmail with a 429 (and the same
 * reasons on a 403). https://developers.google.com/drive/api/guides/limits and .../gmail/api/guides/handle-errors
 */
const RATE_LIMITS = new Set(['userRateLimitExceeded', 'rateLimitExceeded', 'sharingRateLimitExceeded'])
/** A token without the API's scope (the user unticked it on Google's granular consent screen). */
const MISSING_SCOPE = new Set(['insufficientPermissions', 'ACCESS_TOKEN_SCOPE_INSUFFICIENT'])

/** What a Google error means to the runtime's retry rules: a rate limit, a missing scope, or by its status alone. */
export function classifyGoogleError(error: unknown): ProviderAnswer {
	const status = statusOf(error)
	const reason = reasonOf(error) ?? ''
	if ((status === 403 || status === 429) && RATE_LIMITS.has(reason)) return 'rate-limit'
	if (status === 403 && MISSING_SCOPE.has(reason)) return 'insufficient-scope'
	return null
}

/**
 * Calls to one Google API for one connection. `call` runs a googleapis request with the connection's token
 * (`ctx.withToken`: a 401 refreshes the token once, only a refused refresh expires the connection) under the
 * runtime's retry rules (`withProviderRetry`: 429, 5xx, network errors and Google's rate-limit 403s with backoff; a
 * missing scope names `scope`). googleapis's own retry and refresh are off: its OAuth2 client only hands over the
 * token `call` was given.
 */
export interface GoogleCalls<Client> {
	auth: Client
	call<T>(request: () => Promise<T>): Promise<T>
}

export function googleCalls<Client extends GoogleAuthClient>(
	OAuth2: new (options?: { eagerRefreshThresholdMillis?: number }) => Client,
	ctx: Pick<SyncContext, 'withToken' | 'connectionId' | 'signal'>,
	scope: string,
): GoogleCalls<Client> {
	let current = ''
	const auth = new OAuth2({ eagerRefreshThresholdMillis: 0 })
	// Expired as soon as it is handed over: the client asks again before every request.
	auth.refreshHandler = async () => ({ access_token: current, expiry_date: Date.now() })
	const policy: ProviderPolicy = {
		classifyError: classifyGoogleError,
		missingScopes: () => [scope],
		limitKey: ctx.connectionId,
		signal: ctx.signal,
	}
	return {
		auth,
		call: (request) =>
			ctx.withToken((token) => {
				current = token
				return withProviderRetry(request, policy)
			}),
	}
}

/** The part of google-auth-library's OAuth2Client used here. */
export interface GoogleAuthClient {
	refreshHandler?: () => Promise<{ access_token: string; expiry_date: number }>
}

/**
 * The options of a googleapis API client for one connection: the calls' auth client, the configured root URL (unset:
 * the API's own), and no retry of its own (the runtime's rules retry).
 */
export function googleApiOptions<Client>(
	calls: GoogleCalls<Client>,
	apiUrl: string | undefined,
): { auth: Client; rootUrl?: string; retry: false } {
	return { auth: calls.auth, retry: false, ...rootUrlOption(apiUrl) }
}

/**
 * An error that ends the whole run rather than failing one item: a refused grant (core expires the connection), a
 * missing scope (core marks the connection), a rate limit that outlasted the wait (core ends the run as
 * `rate_limited` and resumes from its checkpoint), or the run being stopped.
 */
export function endsRun(error: unknown): boolean {
	return (
		error instanceof ConnectorAuthError ||
		error instanceof RateLimitedError ||
		error instanceof InsufficientScopeError ||
		statusOf(error) === 401 ||
		(error as Error | null)?.name === 'AbortError'
	)
}
