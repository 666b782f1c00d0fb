import {
	type AuthInfo,
	createMcpHandler,
	localhostAllowedHostnames,
	validateHostHeader,
	validateOriginHeader,
} from '@modelcontextprotocol/server'
import { Elysia } from 'elysia'
import type { Principal } from '../core/auth/verifier.ts'
import { ServiceError } from '../core/errors.ts'
import { callerOf, type McpCaller } from './caller.ts'
import type { McpDeps } from './deps.ts'
import { createMemoryMcpServer } from './server.ts'

export interface McpHttpOptions {
	/** Verifies an API key (and applies its rate limit), as for the REST routes. */
	verify: (key: string) => Promise<Principal | null>
	/** Extra Host header names allowed (`*`: any), besides localhost and the public URL's host. */
	allowedHosts: string[]
	/** Extra browser Origin host names allowed (`*`: any), besides localhost and the public URL's host. */
	allowedOrigins: string[]
	publicUrl: string | null
	maxBodyBytes: number
}

const METADATA_PATH = '/.well-known/oauth-protected-resource'

/**
 * Streamable HTTP MCP at /mcp, stateless: every request gets a fresh server bound to its API key (both the 2026-07-28
 * protocol and 2025-era clients, through the SDK's stateless fallback). Host and Origin are checked against DNS
 * rebinding before the key; the protected-resource metadata document the 401 challenge points at is served too.
 */
export function mcpRoutes(deps: McpDeps, options: McpHttpOptions) {
	const handler = createMcpHandler(
		({ authInfo }) => {
			const caller = authInfo?.extra?.caller as McpCaller | undefined
			if (!caller) throw new Error('MCP request reached the server without a verified caller')
			return createMemoryMcpServer(deps, caller)
		},
		{
			legacy: 'stateless',
			maxRequestBodySize: options.maxBodyBytes,
			onerror: (error) => deps.logger.debug('mcp request refused', { error: error.message }),
		},
	)
	const publicHost = options.publicUrl ? new URL(options.publicUrl).hostname.toLowerCase() : null
	const hosts = [...localhostAllowedHostnames(), ...(publicHost ? [publicHost] : []), ...options.allowedHosts]
	const origins = [...localhostAllowedHostnames(), ...(publicHost ? [publicHost] : []), ...options.allowedOrigins]
	const base = (request: Request) => options.publicUrl ?? new URL(request.url).origin
	const metadata = (request: Request) => ({
		resource: `${base(request)}/mcp`,
		authorization_servers: [],
		bearer_methods_supported: ['header'],
		resource_name: 'memory-service MCP',
		resource_documentation: `${base(request)}/swagger`,
	})

	function checkHostAndOrigin(request: Request) {
		if (!hosts.includes('*')) {
			const host = validateHostHeader(request.headers.get('host'), hosts)
			if (!host.ok) {
				throw new ServiceError(
					403,
					'Host not allowed',
					`${host.message}; add the host name to MEMORY_MCP_ALLOWED_HOSTS (or set MEMORY_PUBLIC_URL) to serve MCP under it`,
				)
			}
		}
		if (!origins.includes('*')) {
			const origin = validateOriginHeader(request.headers.get('origin'), origins)
			if (!origin.ok) {
				throw new ServiceError(
					403,
					'Origin not allowed',
					`${origin.message}; add the origin's host name to MEMORY_MCP_ALLOWED_ORIGINS to allow browsers on it`,
				)
			}
		}
	}

	async function authenticate(request: Request): Promise<AuthInfo> {
		const challenge = `resource_metadata="${base(request)}${METADATA_PATH}/mcp"`
		const header = request.headers.get('authorization')
		if (!header) {
			throw new ServiceError(401, 'Unauthorized', 'Missing Authorization header (expected "Bearer <api key>")', {
				'www-authenticate': `Bearer ${challenge}`,
			})
		}
		const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1]
		const principal = token ? await options.verify(token) : null
		if (!token || !principal) {
			const details = token ? 'Invalid or revoked API key' : 'Authorization header must be "Bearer <api key>"'
			throw new ServiceError(401, 'Unauthorized', details, {
				'www-authenticate': `Bearer error="invalid_token", error_description="${details.replaceAll('"', "'")}", ${challenge}`,
			})
		}
		const caller = callerOf(principal, request.headers)
		return { token, clientId: principal.keyId, scopes: [], extra: { caller } }
	}

	/**
	 * A JSON-RPC batch is as many requests as it holds: each message after the first spends the key's rate limit too
	 * (verify answers 429 once it is spent), so a batch cannot run hundreds of tool calls for one request's price.
	 */
	async function chargeBatch(request: Request, token: string) {
		if (request.method !== 'POST') return
		let messages: unknown
		try {
			messages = JSON.parse(await request.clone().text())
		} catch {
			return // the SDK answers the parse error
		}
		if (!Array.isArray(messages)) return
		for (let i = 1; i < messages.length; i++) await options.verify(token)
	}

	const hidden = { detail: { hide: true } }
	return new Elysia({ name: 'mcp' })
		.get(METADATA_PATH, ({ request }) => metadata(request), hidden)
		.get(`${METADATA_PATH}/mcp`, ({ request }) => metadata(request), hidden)
		.all(
			'/mcp',
			async ({ request }) => {
				checkHostAndOrigin(request)
				const authInfo = await authenticate(request)
				await chargeBatch(request, authInfo.token)
				return handler.fetch(request, { authInfo })
			},
			// The SDK reads the body itself.
			{ parse: 'none', ...hidden },
		)
}
