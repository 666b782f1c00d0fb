import type { Client } from '@notionhq/client'
import { ConnectorAuthError, type ProviderPolicy, type SyncContext, withProviderRetry } from '../../core/index.ts'
import { pacedFetch, pacerFor } from './pacing.ts'

/** The Notion API version the connector reads (data sources, `in_trash`). */
export const NOTION_VERSION = '2025-09-03'

export const statusOf = (error: unknown): number | undefined => (error as { status?: number } | null)?.status

/** Notion refused just this item or part (gone, not shared, malformed): it is recorded or left out, the run goes on. */
export const isRefused = (error: unknown): boolean => {
	const status = statusOf(error)
	return status === 400 || status === 403 || status === 404
}

/**
 * Notion still failed one request after its retries (5xx: a page too heavy to serve in time answers 502/504): the
 * item it was reading fails, to be read again on a later run, while the others go on.
 */
export const isUnavailable = (error: unknown): boolean => (statusOf(error) ?? 0) >= 500

/** The longest one request waits for Notion's Retry-After within a run (seconds). */
export const DEFAULT_MAX_RATE_LIMIT_WAIT_SECONDS = 600

export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** The client library is loaded on first use, so a service that never syncs Notion never loads it. */
export async function notionClient(apiUrl: string, fetchImpl?: typeof fetch, ownRetries = true): Promise<Client> {
	const { Client, LogLevel } = await import('@notionhq/client')
	return new Client({
		baseUrl: apiUrl,
		notionVersion: NOTION_VERSION,
		// Outside a sync, 429 (and 5xx of reads) are retried by the library, waiting out Retry-After (at most a minute).
		retry: ownRetries ? { maxRetries: 5, initialRetryDelayMs: 1000, maxRetryDelayMs: 60_000 } : false,
		timeoutMs: 30_000,
		logLevel: LogLevel.ERROR,
		logger: () => {},
		...(fetchImpl ? { fetch: fetchImpl } : {}),
	})
}

/**
 * Notion for one connection: calls paced, each with the connection's current token; a token Notion refuses (401) is
 * refreshed once through the refresh token when Notion issued one, else the grant is revoked (ConnectorAuthError).
 */
export class NotionSession {
	private constructor(
		readonly client: Client,
		private readonly ctx: SyncContext<unknown>,
		private token: string,
		private readonly policy: ProviderPolicy,
	) {}

	/**
	 * `maxRateLimitWaitSeconds`: the longest a run waits for one request's `Retry-After` (Notion's per-workspace limit
	 * asks for more than a minute); a longer one ends the run as rate limited, to resume at the time Notion named.
	 */
	static async open(
		ctx: SyncContext<unknown>,
		apiUrl: string,
		requestsPerSecond: number,
		maxRateLimitWaitSeconds = DEFAULT_MAX_RATE_LIMIT_WAIT_SECONDS,
	): Promise<NotionSession> {
		const pacer = pacerFor(ctx.connectionId, requestsPerSecond)
		const client = await notionClient(apiUrl, pacedFetch(pacer, ctx.signal), false)
		return new NotionSession(client, ctx, await ctx.accessToken(), {
			maxTries: 8,
			maxWaitMs: maxRateLimitWaitSeconds * 1000,
			baseDelayMs: 1000,
			signal: ctx.signal,
		})
	}

	/**
	 * Runs `call` with the token (`auth`): a 429 (`rate_limited`, Retry-After in seconds) or 529/5xx is waited out and
	 * retried, never before the time Notion asked for; a token Notion refuses is refreshed once.
	 */
	async call<T>(call: (client: Client, auth: string) => Promise<T>): Promise<T> {
		return this.authorized((client, auth) => withProviderRetry(() => call(client, auth), this.policy))
	}

	private async authorized<T>(call: (client: Client, auth: string) => Promise<T>): Promise<T> {
		try {
			return await call(this.client, this.token)
		} catch (error) {
			if (statusOf(error) !== 401) throw error
			if (!this.ctx.refreshAccessToken) throw new ConnectorAuthError('Notion refused the token (revoked)')
			const refused = this.token
			this.token = await this.ctx.refreshAccessToken(refused)
			if (this.token === refused) throw new ConnectorAuthError('Notion refused the token (revoked)')
			try {
				return await call(this.client, this.token)
			} catch (again) {
				if (statusOf(again) === 401) throw new ConnectorAuthError('Notion refused the refreshed token (revoked)')
				throw again
			}
		}
	}
}
