import type { Client, Context, Middleware } from '@microsoft/microsoft-graph-client'
import { ConnectorAuthError, type SyncContext } from '../../core/index.ts'
import type { Endpoints } from './options.ts'

/**
 * Adds the bearer token to requests for the configured Graph origin only. The library's own handler does this
 * only for https Graph hosts (or `customHosts`), which rules out a plain-http local endpoint; its redirect handler,
 * after this one, still drops the header when a download is redirected to another host.
 */
class BearerToken implements Middleware {
	private next: Middleware | undefined
	constructor(
		private readonly token: () => Promise<string>,
		private readonly origin: string,
	) {}
	async execute(context: Context): Promise<void> {
		const url = typeof context.request === 'string' ? context.request : context.request.url
		if (new URL(url).origin === this.origin) {
			const value = `Bearer ${await this.token()}`
			context.options ??= {}
			const headers = context.options.headers
			if (headers instanceof Headers) headers.set('Authorization', value)
			else context.options.headers = { ...(headers as Record<string, string> | undefined), Authorization: value }
		}
		await this.next!.execute(context)
	}
	setNext(next: Middleware): void {
		this.next = next
	}
}

/** The Graph client, loaded on first use: token, retries honouring `Retry-After`, redirects, then fetch. */
export async function graphClient(endpoints: Endpoints, token: () => Promise<string>): Promise<Client> {
	const graph = await import('@microsoft/microsoft-graph-client')
	const { delaySeconds, maxRetries } = endpoints.retry
	return graph.Client.initWithMiddleware({
		baseUrl: `${endpoints.graphUrl}/`,
		middleware: [
			new BearerToken(token, new URL(endpoints.graphUrl).origin),
			new graph.RetryHandler(new graph.RetryHandlerOptions(delaySeconds, maxRetries)),
			new graph.RedirectHandler(new graph.RedirectHandlerOptions()),
			new graph.HTTPMessageHandler(),
		],
	})
}

/** Graph for one connection's sync: each call runs with the current token, refreshed once when Graph refuses it. */
export interface GraphSession {
	client: Client
	call<T>(request: (client: Client) => Promise<T>): Promise<T>
}

export async function graphSession(endpoints: Endpoints, ctx: SyncContext<unknown>): Promise<GraphSession> {
	let current: string | null = null
	const client = await graphClient(endpoints, async () => current ?? ctx.accessToken())
	return {
		client,
		call: (request) =>
			ctx.withToken(async (token) => {
				current = token
				return request(client)
			}),
	}
}

/**
 * A nextLink or deltaLink as the client takes it: path and query without origin and version. The client parses
 * only absolute https links itself, so this is what keeps a plain-http endpoint (and every other) working.
 */
export function relativeLink(link: string, graphUrl: string): string {
	const url = new URL(link, `${graphUrl}/`)
	const base = new URL(`${graphUrl}/`).pathname
	const path = url.pathname.startsWith(base) ? url.pathname.slice(base.length - 1) : url.pathname
	return `${path.replace(/^\/(v1\.0|beta)(?=\/)/, '')}${url.search}`
}

/** The HTTP status of a Graph error. */
export const statusOf = (error: unknown): number | undefined => {
	const value = error as { statusCode?: number; status?: number } | null
	return value?.statusCode ?? value?.status
}

export const codeOf = (error: unknown): string | undefined => (error as { code?: string } | null)?.code ?? undefined

/** Turns a refused token into the error core marks the connection with. */
export async function guarded<T>(call: () => Promise<T>): Promise<T> {
	try {
		return await call()
	} catch (error) {
		if (statusOf(error) === 401) throw new ConnectorAuthError('Microsoft Graph refused the token (revoked or expired)')
		throw error
	}
}
