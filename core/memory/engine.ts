import type { MemorySettings } from '../config/memory-settings.ts'
import type { JobQueue } from '../jobs/queue.ts'
import type { Logger } from '../logger.ts'
import type { DocumentBudget } from '../pipeline/budget.ts'
import type { EmbedderPlugin, ExtractorPlugin, RerankerPlugin } from '../plugins/contract.ts'
import type { Storage } from '../plugins/storage.ts'
import { createCalibration } from '../search/calibration.ts'
import { createMemorySearch } from '../search/memory-search.ts'
import { type DreamingDeps, dreamContainer, rearmPending } from './dreaming.ts'
import { memoryStep } from './pipeline-step.ts'
import { createMemoryService } from './service.ts'

/** Containers re-armed at most by the start-up sweep. */
const PENDING_SWEEP = 10_000

/**
 * The memory engine's parts, built once by the runtime: the pipeline's memory step, the dreaming worker, the
 * memory API service and memory search. The first extractor plugin forms memories; without one none are formed
 * (documents still finish, with dreamingStatus done), while memories written through the API still work.
 */
export function createMemoryEngine(deps: {
	storage: Storage
	embedder: EmbedderPlugin
	extractors: ExtractorPlugin[]
	reranker: RerankerPlugin | null
	queue: JobQueue
	logger: Logger
	settings: MemorySettings
	/** Time and memory a document's memory extraction may take. */
	budget?: DocumentBudget
}) {
	const { storage, embedder, logger, queue } = deps
	// The registry allows at most one.
	const extractor = deps.extractors[0] ?? null
	const dreaming: DreamingDeps = {
		storage,
		embedder,
		extractor,
		logger,
		queue,
		quietSeconds: deps.settings.dreamingQuietSeconds,
		maxWaitSeconds: deps.settings.dreamingMaxWaitSeconds,
		budget: deps.budget,
	}
	const calibration = createCalibration(embedder, storage.meta)
	return {
		step: memoryStep(dreaming),
		service: createMemoryService({ storage, embedder, extractor, logger, calibration }),
		search: createMemorySearch({ storage, embedder, reranker: deps.reranker, calibration }),
		/** Re-arms the batches a stop left pending, then consumes dreaming batches, `concurrency` containers at once. */
		async startWorkers(concurrency: number): Promise<void> {
			const rearmed = await rearmPending(dreaming, PENDING_SWEEP)
			if (rearmed > 0) logger.info('re-armed pending dreaming batches', { containers: rearmed })
			await queue.workDreaming(concurrency, (job, attempt) => dreamContainer(job, dreaming, attempt))
		},
	}
}

export type MemoryEngine = ReturnType<typeof createMemoryEngine>
