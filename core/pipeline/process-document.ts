import type { DocumentRecord, DocumentStatus, PipelineStage, RecordedStage, StageRecord } from '../domain/types.ts'
import { PIPELINE_STAGES } from '../domain/types.ts'
import { PermanentStageError, StageError } from '../errors.ts'
import { type IsolationLimits, runIsolated } from '../jobs/isolated-task.ts'
import type { JobAttempt } from '../jobs/queue.ts'
import { yieldToEventLoop } from '../jobs/yield.ts'
import type { Logger } from '../logger.ts'
import type { EmbedderPlugin, ExtractorPlugin } from '../plugins/contract.ts'
import type { ProgressUpdate, Storage } from '../plugins/storage.ts'
import { type DocumentBudget, startBudget } from './budget.ts'
import { chunkText, type PackedChunks, type TextChunk, unpackChunks } from './chunker.ts'
import { extractiveSummary } from './extract/summary.ts'
import { type ExtractionDeps, extractText } from './extract.ts'
import { failureReason, rawMessage } from './failure-reason.ts'

export interface PipelineDeps {
	storage: Storage
	embedder: EmbedderPlugin
	logger: Logger
	/** Originals, URL fetching and file parsers; without it only text and structured content can be extracted. */
	extraction?: ExtractionDeps
	/** Memory formation after indexing (core/memory/pipeline-step.ts); without it no document forms memories. */
	memories?: MemoryStep
	/** Time and memory one attempt at a document may take; without it, unbounded. */
	budget?: DocumentBudget
	/** Writes documents' summaries (an LLM extractor); without it, or when it gives none, the offline extractive one. */
	summarizer?: Pick<ExtractorPlugin, 'summarize'>
}

export interface MemoryStep {
	/** True when the document forms memories at all (taskType memory, and an extractor is configured). */
	forms(document: DocumentRecord): boolean
	/**
	 * Forms the document's memories now: the `memories` stage of instant dreaming. `waiting` is called when the
	 * document is ready and only waits for its container's formation.
	 */
	formNow(documentId: string, waiting?: () => void, signal?: AbortSignal): Promise<void>
	/** Hands the done document to its container's dreaming batch (dynamic dreaming). Idempotent. */
	dreamLater(document: DocumentRecord): Promise<void>
}

export { PermanentStageError }

const EMBED_BATCH = 64
/**
 * Chunks written per statement. Each new row goes into the vector index, a few milliseconds apiece in the embedded
 * database, which runs in this thread: 64 rows held the event loop for half a second.
 */
const STAGE_BATCH = 16

/** Text longer than this is split into chunks in a worker thread (5 MB takes seconds). */
const ISOLATED_CHUNKING_CHARS = 100_000
const CHUNKER = new URL('./chunker.ts', import.meta.url).href
/** Text longer than this is split in a thread of its own, ended afterwards so its memory is returned. */
const LARGE_TEXT_CHARS = 4_000_000

/** What one run of the pipeline read or computed in an earlier stage, so later ones need not do it again. */
interface RunState {
	/** The attempt's budget: limits for work in worker threads, whose signal aborts once the time is spent. */
	limits: IsolationLimits
	/**
	 * The text as stored (storage may normalize it), so a retried run splits it the same way: kept from extraction,
	 * read by a run that resumes after it.
	 */
	text?: string
	chunks?: TextChunk[]
	/** Chunking cleared the staged chunks in this run: nothing is staged yet. */
	cleared?: boolean
}

type StageRunner = (document: DocumentRecord, deps: PipelineDeps, run: RunState) => Promise<void>

async function textOf(document: DocumentRecord, storage: Storage, run: RunState): Promise<string> {
	run.text ??= (await storage.documents.text(document.id)) ?? ''
	return run.text
}

async function chunksOf(document: DocumentRecord, storage: Storage, run: RunState): Promise<TextChunk[]> {
	if (run.chunks) return run.chunks
	const text = await textOf(document, storage, run)
	run.chunks =
		text.length > ISOLATED_CHUNKING_CHARS
			? unpackChunks(
					await runIsolated<PackedChunks>(CHUNKER, 'chunkTextPacked', [text], {
						...run.limits,
						endThread: text.length > LARGE_TEXT_CHARS,
					}),
				)
			: chunkText(text)
	// Only the chunks are needed from here on; the text can go (50 MB of it, for the largest upload).
	run.text = undefined
	return run.chunks
}

const STAGES: Record<PipelineStage, StageRunner> = {
	async extracting(document, { storage, extraction, summarizer, logger }, run) {
		const extracted = await extractText(document, extraction && { ...extraction, limits: run.limits })
		run.limits.signal?.throwIfAborted()
		// A summary is worth no retry of the document: when the writer fails, the offline one stands in.
		const written = await summarizer?.summarize?.({ text: extracted.text, title: extracted.title }).catch((error) => {
			logger.warn('summary not written, using the extractive one', { documentId: document.id, error: String(error) })
			return null
		})
		run.limits.signal?.throwIfAborted()
		run.text = await storage.documents.setExtracted(document.id, document.contentHash, {
			...extracted,
			summary: written || extractiveSummary(extracted.text),
		})
	},
	async chunking(document, { storage }, run) {
		if ((await chunksOf(document, storage, run)).length === 0) {
			throw new PermanentStageError('the document has no text to index')
		}
		// A fresh split: whatever an abandoned run staged goes (chunking is deterministic, so the text is the key).
		await storage.chunks.clearStaged(document.id)
		run.cleared = true
	},
	async embedding(document, { storage, embedder }, run) {
		// Each chunk is written once, with its embedding; a retried run embeds only the positions not staged yet.
		// (A chunk staged without its embedding, by an older version of the service, is embedded again.)
		const staged = run.cleared ? [] : (await storage.chunks.staged(document.id)).filter((chunk) => chunk.embedded)
		const done = new Set(staged.map((chunk) => chunk.position))
		const pending = (await chunksOf(document, storage, run)).filter((chunk) => !done.has(chunk.position))
		for (let start = 0; start < pending.length; start += EMBED_BATCH) {
			const batch = pending.slice(start, start + EMBED_BATCH)
			const vectors = await embedder.embed(
				batch.map((chunk) => chunk.content),
				'document',
			)
			// Embedding and the writes each hold the event loop for a while with a local embedder and the embedded
			// database: requests get their turn between them.
			for (let part = 0; part < batch.length; part += STAGE_BATCH) {
				await yieldToEventLoop()
				await storage.chunks.stage(
					document.id,
					batch
						.slice(part, part + STAGE_BATCH)
						.map((chunk, i) => ({ ...chunk, type: 'text' as const, metadata: null, embedding: vectors[part + i]! })),
				)
			}
			await yieldToEventLoop()
			run.limits.signal?.throwIfAborted()
		}
	},
	async indexing(document, { storage }) {
		await storage.chunks.publish(document.id)
	},
}

/**
 * Walks a document through the pipeline, starting at its first unfinished stage, so a retried job resumes where the
 * last attempt stopped. Every stage's start, end and outcome is recorded on the document. The attempt's `waiting` is
 * called once the document only waits for its memories to be formed (instant dreaming).
 * Throws when the attempt failed and may be retried; marks the document failed on a permanent or last failure.
 */
export async function processDocument(documentId: string, deps: PipelineDeps, attempt: JobAttempt): Promise<void> {
	const document = await deps.storage.documents.byId(documentId)
	if (!document) return
	const formsMemories = deps.memories?.forms(document) ?? false
	const instant = formsMemories && document.dreaming === 'instant'
	if (document.status === 'done') {
		// A retry after the document was marked done but before its batch was armed: arm it now.
		if (formsMemories && !instant && document.dreamingStatus === 'dreaming') await deps.memories!.dreamLater(document)
		return
	}
	const budget = startBudget(deps.budget)
	try {
		await runStages(document, deps, attempt, { limits: budget.limits })
	} finally {
		budget.end()
	}
}

async function runStages(
	document: DocumentRecord,
	deps: PipelineDeps,
	{ lastAttempt, waiting }: JobAttempt,
	run: RunState,
): Promise<void> {
	const documentId = document.id
	const formsMemories = deps.memories?.forms(document) ?? false
	const instant = formsMemories && document.dreaming === 'instant'
	const stages: StageRecord[] = document.stages.filter((record) => record.outcome === 'ok')
	const finished = new Set(stages.map((record) => record.stage))
	const contentHash = document.contentHash
	// Every write is conditional on the content this attempt started from; a re-send in between hands the
	// document to the newer job and this one stops quietly.
	const record = (update: Omit<ProgressUpdate, 'contentHash'>) =>
		deps.storage.documents.setProgress(document.id, { ...update, contentHash })

	const steps: RecordedStage[] = instant ? [...PIPELINE_STAGES, 'memories'] : [...PIPELINE_STAGES]
	// Instant memory formation happens before `done`; the document shows `indexing` meanwhile.
	const statusOf = (stage: RecordedStage): DocumentStatus => (stage === 'memories' ? 'indexing' : stage)
	for (const stage of steps) {
		if (finished.has(stage)) continue
		await yieldToEventLoop()
		const running: StageRecord = { stage, startedAt: new Date().toISOString(), endedAt: null, outcome: 'running' }
		if (!(await record({ status: statusOf(stage), stages: [...stages, running] }))) return
		try {
			if (stage === 'memories') await deps.memories!.formNow(document.id, waiting, run.limits.signal)
			else await STAGES[stage](document, deps, run)
		} catch (error) {
			const permanent = error instanceof StageError && error.permanent
			const message = failureReason(stage, error)
			const failed: StageRecord = { ...running, endedAt: new Date().toISOString(), outcome: 'failed', error: message }
			const giveUp = permanent || lastAttempt
			// A retry resumes at this stage; a failure that will not be retried ends the document here.
			const status = giveUp ? 'failed' : statusOf(stage)
			if (!(await record({ status, stages: [...stages, failed], error: message }))) return
			deps.logger.warn('pipeline stage failed', { documentId, stage, error: rawMessage(error), retry: !giveUp })
			if (giveUp) return
			throw error
		}
		stages.push({ ...running, endedAt: new Date().toISOString(), outcome: 'ok' })
	}
	// With dynamic dreaming the document is done first; its memories form with its container's next batch.
	const dreamLater = formsMemories && !instant
	if (!(await record({ status: 'done', stages, error: null, dreamingStatus: dreamLater ? 'dreaming' : 'done' }))) return
	if (dreamLater) await deps.memories!.dreamLater(document)
}
