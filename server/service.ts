import { type Service as Runtime, startRuntime } from '../core/runtime.ts'
import { type App, createApp, createConsoleBundle } from './app.ts'

export type { Role } from '../core/runtime.ts'

export interface Service extends Runtime {
	/** The HTTP app (absent for the worker role); `app.handle(request)` serves a request in-process. */
	app: App | null
}

/** Starts the runtime and composes its HTTP surfaces (not yet listening): what `server/main.ts` and the tests run. */
export async function startService(input: Parameters<typeof startRuntime>[0]): Promise<Service> {
	const runtime = await startRuntime(input)
	const { settings, logger } = input
	const env = input.env ?? process.env
	const app = runtime.routeDeps
		? createApp(runtime.routeDeps, {
				logger,
				maxBodyBytes: settings.maxBodyBytes,
				maxUploadBytes: settings.maxUploadBytes,
				ready: runtime.ready,
				console: settings.consoleEnabled
					? createConsoleBundle({ logger, rebuild: env.MEMORY_CONSOLE_DEV === '1' })
					: null,
				mcp: settings.mcpEnabled
					? {
							allowedHosts: settings.mcpAllowedHosts,
							allowedOrigins: settings.mcpAllowedOrigins,
							publicUrl: settings.publicUrl,
						}
					: null,
			})
		: null
	return { ...runtime, app }
}
