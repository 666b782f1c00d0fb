import { StartupError } from '../core/errors.ts'
import { UPLOAD_FORM_OVERHEAD } from '../core/http/app.ts'
import { createLogger } from '../core/logger.ts'
import { type Role, startService } from '../core/runtime.ts'
import { withDefaultFiles } from './defaults.ts'
import { loadConfig } from './load-config.ts'

function parseRole(argv: string[]): Role {
	const index = argv.findIndex((arg) => arg === '--role' || arg.startsWith('--role='))
	if (index === -1) return 'all'
	const value = argv[index]!.includes('=') ? argv[index]!.split('=')[1] : argv[index + 1]
	if (value === 'api' || value === 'worker' || value === 'all') return value
	throw new StartupError(`--role must be api, worker or all (got "${value ?? ''}")`)
}

async function main() {
	const role = parseRole(process.argv.slice(2))
	const config = await loadConfig()
	const logger = createLogger(config.settings.logLevel)
	const started = performance.now()
	const service = await startService({
		settings: config.settings,
		plugins: await withDefaultFiles(config.plugins, config.settings),
		logger,
		role,
	})
	const server = service.app?.listen({
		port: config.settings.port,
		hostname: config.settings.hostname,
		maxRequestBodySize: Math.max(config.settings.maxBodyBytes, config.settings.maxUploadBytes + UPLOAD_FORM_OVERHEAD),
	})
	logger.info('memory service started', {
		role,
		config: config.source,
		store: config.settings.databaseUrl ? 'postgres' : `embedded (${config.settings.dataDir})`,
		embedder: service.plugins.embedder.space.id,
		url: server ? `http://${server.server?.hostname}:${server.server?.port}` : null,
		startupMs: Math.round(performance.now() - started),
	})
	if (service.firstKey) {
		console.log('Created the first API key for organization "default" (shown only once, store it now):')
		console.log(service.firstKey)
	}
	let stopping = false
	const shutdown = async (signal: string) => {
		if (stopping) return
		stopping = true
		logger.info('stopping', { signal })
		await server?.stop()
		await service.stop()
		process.exit(0)
	}
	process.on('SIGINT', () => void shutdown('SIGINT'))
	process.on('SIGTERM', () => void shutdown('SIGTERM'))
}

main().catch((error) => {
	if (error instanceof StartupError) {
		console.error(`memory service cannot start: ${error.message}`)
	} else {
		console.error('memory service failed to start:', error instanceof Error ? error.message : error)
	}
	process.exit(1)
})
