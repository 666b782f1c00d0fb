/** Which HTTP surfaces besides the REST API are served, and which Host and Origin headers `/mcp` answers. */
export interface SurfaceSettings {
	/** Serve the MCP endpoint at /mcp (MEMORY_MCP_ENABLED, default on). */
	mcpEnabled: boolean
	/** Serve the developer console at /console (MEMORY_CONSOLE_ENABLED, default on). */
	consoleEnabled: boolean
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

function flag(env: Env, name: string, fallback: boolean): boolean {
	const raw = env[name]?.trim().toLowerCase()
	if (raw === undefined || raw === '') return fallback
	if (['1', 'true', 'on', 'yes'].includes(raw)) return true
	if (['0', 'false', 'off', 'no'].includes(raw)) return false
	throw new Error(`${name} must be on or off (true/false, 1/0), got "${env[name]}"`)
}

export function surfaceSettingsFromEnv(env: Env): SurfaceSettings {
	return {
		mcpEnabled: flag(env, 'MEMORY_MCP_ENABLED', true),
		consoleEnabled: flag(env, 'MEMORY_CONSOLE_ENABLED', true),
		mcpAllowedHosts: list(env.MEMORY_MCP_ALLOWED_HOSTS),
		mcpAllowedOrigins: list(env.MEMORY_MCP_ALLOWED_ORIGINS),
	}
}
