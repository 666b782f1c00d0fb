import { type ConsoleBundle, createConsoleBundle } from '../console/serve/bundle.ts'
import { consoleRoutes } from '../console/serve/routes.ts'
import { type FrameOptions, httpFrame } from '../core/http/frame.ts'
import { restApi } from '../core/http/rest-api.ts'
import type { RouteDeps } from '../core/http/route-deps.ts'
import { mcpDepsFrom } from '../mcp/deps.ts'
import { mcpRoutes } from '../mcp/http.ts'

export interface AppOptions extends FrameOptions {
	/** The MCP endpoint at /mcp, with its allowed Host and Origin names; omitted: no MCP. */
	mcp?: { allowedHosts: string[]; allowedOrigins: string[]; publicUrl: string | null } | null
	/** The developer console at /console; omitted: no console. */
	console?: ConsoleBundle | null
}

/** The service's HTTP surfaces, composed here and nowhere else: the REST API, then MCP and the console when on. */
export function createApp(deps: RouteDeps, options: AppOptions) {
	const app = httpFrame(options).use(restApi(deps, options))
	if (options.mcp) {
		app.use(
			mcpRoutes(mcpDepsFrom(deps, options.logger), {
				verify: deps.verify,
				allowedHosts: options.mcp.allowedHosts,
				allowedOrigins: options.mcp.allowedOrigins,
				publicUrl: options.mcp.publicUrl,
				maxBodyBytes: options.maxBodyBytes,
			}),
		)
	}
	if (options.console) app.use(consoleRoutes(options.console))
	return app
}

export type App = ReturnType<typeof createApp>
export { createConsoleBundle }
