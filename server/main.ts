import { maxHeaderSize } from 'node:http'
import { StartupError } from '../core/errors.ts'
import { RUNTIME_HEADER_BYTES } from '../core/http/guards/request-size.ts'
import { createLogger } from '../core/logger.ts'
import { withDefaultFiles } from './defaults.ts'
import { loadConfig } from './load-config.ts'
import { type Role, startService } from './service.ts'

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
		// The app counts every body (chunked ones too) and answers 413 as JSON; the runtime's own refusal has no body.
		maxRequestBodySize: Number.MAX_SAFE_INTEGER,
		// Never Bun's development error page (stack, paths, source), whatever NODE_ENV says.
		development: false,
	})
	if (server && maxHeaderSize < RUNTIME_HEADER_BYTES) {
		logger.warn(
			'started without --max-http-header-size: headers over the runtime cap are refused without a JSON body',
			{
				runtimeCap: maxHeaderSize,
				start: `bun --max-http-header-size=${RUNTIME_HEADER_BYTES} server/main.ts (as bun run start does)`,
			},
		)
	}
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
	// Starting leaves the embedded database's set-up and the model loads behind as garbage (hundreds of MB): collect
	// it once now, so the resident size settles at what the service uses instead of waiting for the collector.
	Bun.gc(true)
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
