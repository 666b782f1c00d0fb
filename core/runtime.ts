import { join } from 'node:path'
import { bootstrapFirstKey } from './auth/api-keys.ts'
import { createKeyService } from './auth/key-service.ts'
import { createKeyVerifier } from './auth/verifier.ts'
import { lockEmbeddedStore } from './config/embedded-lock.ts'
import type { ServiceSettings } from './config/settings.ts'
import { defineConnectorQueues, startConnectorWorkers } from './connectors/workers.ts'
import { sorterFor } from './containers/buckets.ts'
import { resortBuckets } from './containers/resort.ts'
import { StartupError } from './errors.ts'
import { createExtraction, fetchPolicyFrom } from './files/extraction-parts.ts'
import type { RouteDeps } from './http/route-deps.ts'
import { BackgroundLane, laneEmbedder } from './jobs/priority.ts'
import { type JobQueue, openJobQueue } from './jobs/queue.ts'
import type { Logger } from './logger.ts'
import { createMemoryEngine } from './memory/engine.ts'
import { warmFileParsers } from './pipeline/extract.ts'
import { processDocument } from './pipeline/process-document.ts'
import type { Plugin } from './plugins/contract.ts'
import { type StartedPlugins, startPlugins } from './plugins/registry.ts'
import { createServices, type Services } from './services.ts'
import { loadEncryptionKey, secretBox } from './settings/secret-box.ts'
import { createUsageMeter } from './usage/meter.ts'
import { createRateLimiter } from './usage/rate-limiter.ts'

export type Role = 'api' | 'worker' | 'all'

export interface Service {
	plugins: StartedPlugins
	queue: JobQueue
	/** The operations every surface (HTTP, console, MCP) shares; see core/services.ts. */
	services: Services
	/** What the HTTP surfaces serve (absent for the worker role): the shared services and key verification. */
	routeDeps: RouteDeps | null
	/** True once storage and workers are up; the health check reports it. */
	ready(): boolean
	/** The key created on the first start of an empty embedded store, shown once. */
	firstKey: string | null
	stop(): Promise<void>
}

const UNFINISHED_SWEEP = 10_000

/**
 * Starts plugins, the job queue and, per role, the workers; the HTTP surfaces are composed on top of it by
 * server/service.ts.
 */
export async function startRuntime(input: {
	settings: ServiceSettings
	plugins: Plugin[]
	logger: Logger
	role?: Role
	env?: Record<string, string | undefined>
}): Promise<Service> {
	const { settings, logger } = input
	const role = input.role ?? 'all'
	const embedded = !settings.databaseUrl
	if (embedded && role !== 'all') {
		throw new StartupError(
			`--role ${role} needs PostgreSQL (set DATABASE_URL): the embedded store can be opened by one process only`,
		)
	}
	const fetchPolicy = fetchPolicyFrom(settings)
	if (!input.plugins.some((plugin) => plugin?.kind === 'files')) {
		throw new StartupError('a files plugin is required (the start command adds files-local when none is configured)')
	}
	const unlock = embedded ? lockEmbeddedStore(settings.dataDir) : () => {}
	let plugins: StartedPlugins
	let queue: JobQueue
	try {
		plugins = await startPlugins(input.plugins, { logger, env: input.env ?? process.env })
	} catch (error) {
		unlock()
		throw error
	}
	try {
		queue = await openJobQueue(plugins.storage.jobDatabase(), logger, {
			heartbeat: !embedded,
			documentBudgetSeconds: settings.documentTimeoutSeconds,
		})
	} catch (error) {
		await plugins.stop()
		unlock()
		throw error
	}
	const { storage } = plugins
	// Background embedding (documents, memories) takes turns with searches' embedding of their query.
	const embedder = laneEmbedder(plugins.embedder, new BackgroundLane(settings.workerConcurrency))
	// Checked above: the list holds a files plugin.
	const files = plugins.files!
	const extraction = createExtraction(settings, files, fetchPolicy)
	const budget = {
		timeoutSeconds: settings.documentTimeoutSeconds,
		maxMemoryBytes: settings.documentMaxMemoryMb * 1024 * 1024,
	}
	const memory = createMemoryEngine({
		budget,
		storage,
		embedder,
		extractors: plugins.extractors,
		reranker: plugins.reranker,
		queue,
		logger,
		settings,
	})
	const sorter = sorterFor(embedder)
	const firstKey = embedded ? await bootstrapFirstKey(storage) : null
	let ready = role === 'api'

	if (role !== 'api') {
		// In the background: the first upload need not wait for the parsers, nor the start for them.
		warmFileParsers().catch((error) => logger.warn('file parsers did not load', { error: String(error) }))
		const summarizer = plugins.extractors.find((extractor) => extractor.summarize)
		const deps = { storage, embedder, logger, extraction, memories: memory.step, budget, summarizer }
		// The embedded store belongs to this process alone, so jobs still marked active were orphaned by a crash.
		if (embedded) {
			const recovered = await queue.recoverOrphans()
			if (recovered > 0) logger.info('retrying jobs interrupted by a previous stop', { count: recovered })
		}
		for (const job of await storage.documents.unfinished(UNFINISHED_SWEEP)) {
			await queue.enqueueDocument({ documentId: job.id, orgId: job.orgId })
		}
		await queue.workDocuments(settings.workerConcurrency, (job, attempt) =>
			processDocument(job.documentId, deps, attempt),
		)
		await memory.startWorkers(settings.workerConcurrency)
		await queue.workContainerJobs(async (job) => {
			if (job.kind === 'resort') {
				await resortBuckets({ storage, sorter, logger }, { orgId: job.orgId }, job.containerTag)
				return
			}
			const merge = await storage.containers.runMerge(job.orgId, job.mergeId)
			logger.info('container tags merged', { ...merge })
			// Documents of the sources still waiting for dreaming now belong to the target's batch.
			if (merge?.status === 'done') await queue.armDreaming({ orgId: job.orgId, containerTag: merge.targetTag }, 0)
		})
		ready = true
	}

	const usage = createUsageMeter({ storage, logger })
	const env = input.env ?? process.env
	const secrets = secretBox(loadEncryptionKey({ env, keyFile: join(settings.dataDir, 'secret.key') }))
	const services = await createServices({ plugins, queue, memory, usage, secrets, settings, logger, env })
	// Every role defines them: an api process schedules into them too.
	await defineConnectorQueues(services.connectorDeps)
	if (role !== 'api') await startConnectorWorkers(services.connectorDeps, settings.workerConcurrency)

	const verify = createKeyVerifier(storage, settings.keyCacheSeconds)
	const rateLimit = createRateLimiter(settings.rateLimitPerMinute)
	const authenticate = async (key: string) => {
		const principal = await verify(key)
		if (principal) rateLimit(principal.keyId)
		return principal
	}
	const { connectorDeps: _internal, stopConnectors: _stop, ...shared } = services
	const routeDeps: RouteDeps | null =
		role === 'worker'
			? null
			: {
					...shared,
					verify: authenticate,
					publicUrl: settings.publicUrl ?? null,
					keys: createKeyService({ storage, verifier: verify }),
					webhookRateLimitPerMinute: settings.webhookRateLimitPerMinute,
					consoleEnabled: settings.consoleEnabled,
				}

	return {
		plugins,
		queue,
		services,
		routeDeps,
		ready: () => ready,
		firstKey,
		async stop() {
			ready = false
			services.stopConnectors()
			await usage.stop()
			await queue.stop()
			await extraction.close()
			await plugins.stop()
			unlock()
		},
	}
}
