/** Settings of the MCP endpoint (`/mcp`): which Host and Origin headers it answers, against DNS rebinding. */
export interface McpSettings {
	/**
	 * Host names (no port) requests to /mcp may name in their Host header, besides localhost, 127.0.0.1, [::1] and
	 * the host of `publicUrl`. `*` allows any host.
	 */
	mcpAllowedHosts: string[]
	/** Origin host names browsers may call /mcp from, besides the localhost names and `publicUrl`'s. `*` allows any. */
	mcpAllowedOrigins: string[]
}

type Env = Record<string, string | undefined>

const list = (raw: string | undefined) =>
	(raw ?? '')
		.split(/[\s,]+/)
		.map((entry) => entry.trim().toLowerCase())
		.filter(Boolean)

export function mcpSettingsFromEnv(env: Env): McpSettings {
	return {
		mcpAllowedHosts: list(env.MEMORY_MCP_ALLOWED_HOSTS),
		mcpAllowedOrigins: list(env.MEMORY_MCP_ALLOWED_ORIGINS),
	}
}
