import type { SyncContext } from '../../core/index.ts'
import { rootUrlOption } from './endpoints.ts'

/** How long the googleapis client reuses a token before asking the connection again (core refreshes it). */
const TOKEN_REUSE_MS = 30_000

/**
 * An OAuth2 client for googleapis whose token always comes from the connection (`ctx.accessToken()`): core keeps
 * the refresh token, refreshes and marks the connection expired when Google refuses; the client never refreshes.
 * `OAuth2` is the class googleapis exports as `auth.OAuth2`, passed in so this module loads no API itself.
 */
export function connectionAuth<Client extends GoogleAuthClient>(
	OAuth2: new (options?: { eagerRefreshThresholdMillis?: number }) => Client,
	ctx: Pick<SyncContext, 'accessToken'>,
): Client {
	const client = new OAuth2({ eagerRefreshThresholdMillis: 0 })
	client.refreshHandler = async () => ({
		access_token: await ctx.accessToken(),
		expiry_date: Date.now() + TOKEN_REUSE_MS,
	})
	return client
}

/** The part of google-auth-library's OAuth2Client used here. */
export interface GoogleAuthClient {
	refreshHandler?: () => Promise<{ access_token: string; expiry_date: number }>
}

/** The HTTP status of a googleapis (gaxios) error. */
export const statusOf = (error: unknown): number | undefined => {
	const e = error as { status?: unknown; response?: { status?: unknown } } | null
	const status = e?.status ?? e?.response?.status
	return typeof status === 'number' ? status : undefined
}

/** Google's error reason (`userRateLimitExceeded`, `exportSizeLimitExceeded`), when it gave one. */
export const reasonOf = (error: unknown): string | undefined => {
	const data = (error as { response?: { data?: unknown } } | null)?.response?.data as
		| { error?: { errors?: { reason?: string }[] } }
		| undefined
	return data?.error?.errors?.[0]?.reason
}

const RATE_LIMITS = new Set(['userRateLimitExceeded', 'rateLimitExceeded', 'sharingRateLimitExceeded'])

/**
 * An error that ends the whole run rather than failing one item: a refused grant (core marks the connection), a rate
 * limit or Google in trouble (the queue retries the run from its last checkpoint).
 */
export function endsRun(error: unknown): boolean {
	const status = statusOf(error)
	if (status === 401 || status === 429 || (status !== undefined && status >= 500)) return true
	return RATE_LIMITS.has(reasonOf(error) ?? '')
}

/**
 * The options of a googleapis API client for one connection: its token from the connection, and the configured
 * root URL (unset: the API's own). `OAuth2` is googleapis's `auth.OAuth2` of the API module the caller loaded,
 * e.g. `drive({ version: 'v3', ...googleApiOptions(auth.OAuth2, ctx, apiUrl) })`.
 */
export function googleApiOptions<Client extends GoogleAuthClient>(
	OAuth2: new (options?: { eagerRefreshThresholdMillis?: number }) => Client,
	ctx: Pick<SyncContext, 'accessToken'>,
	apiUrl: string | undefined,
): { auth: Client; rootUrl?: string } {
	return { auth: connectionAuth(OAuth2, ctx), ...rootUrlOption(apiUrl) }
}
