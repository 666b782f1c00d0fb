import { type ContainerContext, containerContext, sortCandidates } from '../containers/buckets.ts'
import type { DocumentRecord, Metadata, Scope, StageRecord } from '../domain/types.ts'
import { newId } from '../ids.ts'
import { searchesComing } from '../jobs/priority.ts'
import type { Logger } from '../logger.ts'
import { type DocumentBudget, startBudget } from '../pipeline/budget.ts'
import type {
	ConversationTurn,
	EmbedderPlugin,
	ExtractionInput,
	ExtractorPlugin,
	MemoryCandidate,
} from '../plugins/contract.ts'
import type { FormationGuard, FormationPlan, FormationResult } from '../plugins/memory-storage.ts'
import type { Storage } from '../plugins/storage.ts'
import { type CountedLines, countedLines, recordLines, withoutBoilerplate } from './boilerplate.ts'
import { conversationOf, documentDate, renderTurns, turnsHash } from './conversation.ts'
import { byScope, formationScopeOf, scopedContext, scopedProbe } from './formation-scope.ts'
import { Linker, type PreparedCandidate } from './link.ts'
import { looksLikeMarkup } from './markup.ts'
import { prepareCandidates, probeFor } from './prepare.ts'

export interface FormationDeps {
	storage: Storage
	embedder: EmbedderPlugin
	/** Null when no extractor is configured: documents then form no memories. */
	extractor: ExtractorPlugin | null
	logger: Logger
	/** Time and memory a document's extraction may take (dreaming batches; the pipeline passes its own signal). */
	budget?: DocumentBudget
}

export type FormationOutcome =
	/** Memories were formed (or there was nothing new to form). */
	| { kind: 'formed'; created: number; attached: number; superseded: number; released: number }
	/** The document forms no memories (superrag, no extractor) or they were formed already. */
	| { kind: 'skipped' }
	/** The document is gone or its content changed meanwhile: a newer job owns it. */
	| { kind: 'stale' }

export interface FormationOptions {
	/** Also mark dreamingStatus done (dynamic dreaming). */
	dreamingDone: boolean
	/** Record a `memories` stage that started then. */
	stageStartedAt?: string
	/** The container's settings for extraction; a batch reads them once for all its documents. */
	container?: (scope: Scope, containerTag: string) => Promise<ContainerContext>
	/** Aborts when the document's time budget is spent; without it the extraction gets `FormationDeps.budget`. */
	signal?: AbortSignal
}

/** A document read, extracted and embedded, ready for its formation transaction. */
export interface Extracted {
	document: DocumentRecord
	guard: FormationGuard
	candidates: PreparedCandidate[]
	/** Only new conversation turns were extracted: the document's earlier sources stay. */
	incremental: boolean
	/** Memories were formed from the document before (so it may source some that a re-extraction drops). */
	formedBefore: boolean
	formed: NonNullable<FormationPlan['formed']>
}

/**
 * Forms a document's memories: extract (only the new turns of a conversation whose earlier turns were extracted
 * before), embed the statements, and link them against the container's memories in one transaction that also
 * records the formation on the document. Re-running it for the same content changes nothing.
 */
export async function formDocumentMemories(
	documentId: string,
	deps: FormationDeps,
	options: FormationOptions,
): Promise<FormationOutcome> {
	const prepared = await extractDocument(documentId, deps, options)
	if ('kind' in prepared) return prepared
	return (await formExtracted([prepared], deps)).get(documentId) ?? { kind: 'stale' }
}

/**
 * Forms several documents of one container (a dreaming batch), in the given order, in one transaction: one lock,
 * one read of what they may link to, one write of each kind. Later documents link to what earlier ones formed.
 * Documents that fail to extract are reported and left out; the others proceed.
 */
export async function formDocumentBatch(
	documentIds: string[],
	deps: FormationDeps,
	options: FormationOptions,
): Promise<{ outcomes: Map<string, FormationOutcome>; failures: Map<string, unknown> }> {
	const outcomes = new Map<string, FormationOutcome>()
	const failures = new Map<string, unknown>()
	const ready: Extracted[] = []
	// Read and extracted concurrently (their reads overlap the extractor's work), formed in the given order; the
	// container's settings are read once for the batch.
	const settings = new Map<string, Promise<ContainerContext>>()
	const container = (scope: Scope, tag: string) => {
		const key = `${scope.orgId}\u0000${tag}`
		const read = settings.get(key) ?? containerContext(deps.storage, scope, tag)
		settings.set(key, read)
		return read
	}
	// Every document is read (and its lines counted) before any is extracted, so boilerplate shared by documents
	// of one batch is known to each of them.
	const reads = await Promise.allSettled(documentIds.map((id) => readDocument(id, deps, options)))
	const settled = await Promise.allSettled(
		reads.map((read) => {
			if (read.status === 'rejected') return Promise.reject(read.reason)
			return 'kind' in read.value ? read.value : extractRead(read.value, deps, { ...options, container })
		}),
	)
	for (const [i, result] of settled.entries()) {
		const id = documentIds[i]!
		if (result.status === 'rejected') failures.set(id, result.reason)
		else if ('kind' in result.value) outcomes.set(id, result.value)
		else ready.push(result.value)
	}
	for (const group of inGroups(ready, (entry) => entry.candidates.length, formationCandidateBound(deps.storage))) {
		for (const [id, outcome] of await formExtracted(group, deps)) outcomes.set(id, outcome)
	}
	return { outcomes, failures }
}

/** Documents formed in one transaction at most (instant and dynamic dreaming alike). */
export const MAX_FORMATION_DOCUMENTS = 25

/**
 * Candidate statements linked in one formation transaction at most (a document with more forms alone). Linking
 * compares each candidate with the others formed alongside, so a transaction's work grows with the square of its
 * candidates: 25 documents of 20 KB (~230 statements each) took seconds where groups of this size take tens of ms.
 */
export const MAX_FORMATION_CANDIDATES = 300

/**
 * The same while searches are coming in (core/jobs/priority.ts) to a store whose one connection a transaction holds:
 * a search there waits for the whole transaction, so it holds about one document's candidates (bench/README, search
 * during a sync).
 */
export const MAX_FORMATION_CANDIDATES_WHILE_SEARCHING = 8

/** The most candidates to form in one transaction now. */
export function formationCandidateBound(storage: Pick<Storage, 'oneConnection'>): number {
	return storage.oneConnection && searchesComing() ? MAX_FORMATION_CANDIDATES_WHILE_SEARCHING : MAX_FORMATION_CANDIDATES
}

/** Consecutive groups of the items, each of at most `most` candidates unless one item alone has more. */
export function inGroups<T>(items: T[], candidatesOf: (item: T) => number, most: number): T[][] {
	const groups: T[][] = []
	let current: T[] = []
	let candidates = 0
	for (const item of items) {
		const count = candidatesOf(item)
		if (current.length > 0 && candidates + count > most) {
			groups.push(current)
			current = []
			candidates = 0
		}
		current.push(item)
		candidates += count
	}
	if (current.length > 0) groups.push(current)
	return groups
}

/**
 * The formation transactions for documents of one container that are read and extracted already, in order: one
 * per formation scope, so documents of different scopes never link to each other's memories. A document whose guard
 * no longer holds (its content changed meanwhile) comes back `stale`.
 */
export async function formExtracted(ready: Extracted[], deps: FormationDeps): Promise<Map<string, FormationOutcome>> {
	const outcomes = new Map<string, FormationOutcome>()
	for (const part of byScope(ready, (entry) => formationScopeOf(entry.document))) {
		for (const [id, outcome] of await formInScope(part.items, part.scope, deps)) outcomes.set(id, outcome)
	}
	return outcomes
}

/** One formation transaction for documents of one scope: they link only to memories in it (all when null). */
async function formInScope(
	ready: Extracted[],
	scope: Metadata | null,
	deps: FormationDeps,
): Promise<Map<string, FormationOutcome>> {
	const outcomes = new Map<string, FormationOutcome>()
	const first = ready[0]
	if (!first) return outcomes
	const candidates = ready.flatMap((entry) => entry.candidates)
	// Where each document's candidates start in the probe (and so in context.nearest).
	let offset = 0
	const offsets = ready.map((entry) => {
		const start = offset
		offset += entry.candidates.length
		return start
	})
	const planned: Extracted[] = []
	const probe = probeFor(candidates)
	const results = await deps.storage.memories.formMany(
		{ orgId: first.document.orgId },
		first.document.containerTag,
		ready.map((entry) => entry.guard),
		scopedProbe(probe, scope),
		(read, admitted) => {
			const context = scopedContext(read, scope, probe.neighbours)
			const linker = new Linker(context, newId)
			planned.length = 0
			return ready.flatMap((entry, i) => {
				if (!admitted.has(entry.document.id)) return []
				planned.push(entry)
				const nearest = context.nearest.slice(offsets[i], offsets[i]! + entry.candidates.length)
				return [planOf(linker, entry, nearest)]
			})
		},
	)
	for (const entry of ready) outcomes.set(entry.document.id, { kind: 'stale' })
	for (const [i, result] of results.entries()) {
		outcomes.set(planned[i]!.document.id, outcomeOf(deps, planned[i]!, result))
	}
	return outcomes
}

/** A document read for formation, its lines counted for boilerplate: what extraction works from. */
interface ReadDocument {
	document: DocumentRecord
	text: string
	conversation: ReturnType<typeof conversationOf>
	known: number
	incremental: boolean
	/** The turns to extract (null: not a conversation). */
	newTurns: ConversationTurn[] | null
	/** The document's lines (its turns, for a conversation), fingerprinted for boilerplate. */
	lines: CountedLines
	formedBefore: boolean
	stage: StageRecord | undefined
}

/** Reads and extracts a document, or says why it forms nothing now. */
export async function extractDocument(
	documentId: string,
	deps: FormationDeps,
	options: FormationOptions,
): Promise<Extracted | Exclude<FormationOutcome, { kind: 'formed' }>> {
	const read = await readDocument(documentId, deps, options)
	return 'kind' in read ? read : extractRead(read, deps, options)
}

/**
 * Reads a document for formation and records its lines, so a batch's documents all count one another's before
 * any of them is extracted.
 */
async function readDocument(
	documentId: string,
	deps: FormationDeps,
	options: FormationOptions,
): Promise<ReadDocument | Exclude<FormationOutcome, { kind: 'formed' }>> {
	const { storage, extractor } = deps
	const state = await storage.memories.formationState(documentId)
	if (!state) return { kind: 'stale' }
	const { document } = state
	const stage: StageRecord | undefined = options.stageStartedAt
		? { stage: 'memories', startedAt: options.stageStartedAt, endedAt: new Date().toISOString(), outcome: 'ok' }
		: undefined
	if (document.taskType === 'superrag' || !extractor || state.formedHash === document.contentHash) {
		if (!options.dreamingDone) return { kind: 'skipped' }
		const marked = await storage.memories.markDreamed(document.id, document.contentHash, stage)
		return marked ? { kind: 'skipped' } : { kind: 'stale' }
	}
	const text = (await storage.documents.text(document.id)) ?? document.content
	const conversation = conversationOf(document, text)
	const turns = conversation?.turns ?? null
	const known = state.extractedTurns
	const incremental =
		turns !== null && known > 0 && turns.length >= known && turnsHash(turns.slice(0, known)) === state.turnsHash
	const lines = countedLines(text, turns)
	await recordLines(storage, document.id, lines)
	return {
		document,
		text,
		conversation,
		known,
		incremental,
		newTurns: turns === null ? null : incremental ? turns.slice(known) : turns,
		lines,
		formedBefore: state.formedHash !== null,
		stage,
	}
}

async function extractRead(read: ReadDocument, deps: FormationDeps, options: FormationOptions): Promise<Extracted> {
	const { storage, embedder, extractor } = deps
	const { document, conversation, known, stage } = read
	const turns = conversation?.turns ?? null
	const chunks = (await storage.chunks.list({ orgId: document.orgId }, document.id)).map((chunk) => ({
		position: chunk.position,
		content: chunk.content,
	}))
	// The tag's settings: its entityContext (the document's own wins) and its buckets.
	const container = await (options.container ?? ((scope, tag) => containerContext(storage, scope, tag)))(
		{ orgId: document.orgId },
		document.containerTag,
	)
	const source = await withoutBoilerplate(storage, document, { text: read.text, turns: read.newTurns }, read.lines)
	const newTurns = source.turns
	const input: ExtractionInput = {
		documentId: document.id,
		containerTag: document.containerTag,
		text: newTurns === null ? source.text : renderTurns(newTurns),
		turns: newTurns,
		date: documentDate(document, conversation?.preamble ?? ''),
		entityContext: document.entityContext ?? container.entityContext,
		chunks,
		...(container.buckets.length > 0 ? { buckets: container.buckets } : {}),
	}
	const extracted =
		newTurns !== null && newTurns.length === 0 ? [] : await extractWithin(extractor!, input, options, deps)
	// Emptied rather than removed: derivedFrom refers to the extractor's indexes (prepareCandidates skips empty ones).
	const found = extracted.map((candidate) =>
		looksLikeMarkup(candidate.content) ? { ...candidate, content: '' } : candidate,
	)
	return {
		document,
		guard: { documentId: document.id, contentHash: document.contentHash, extractedTurns: known },
		candidates: await sortCandidates(
			embedder,
			container.buckets,
			await prepareCandidates(found, embedder, {
				chunks,
				turns: newTurns,
				defaults: { metadata: document.metadata },
			}),
		),
		incremental: read.incremental,
		formedBefore: read.formedBefore,
		formed: {
			extractedTurns: turns?.length ?? 0,
			turnsHash: turns ? turnsHash(turns) : null,
			dreamingDone: options.dreamingDone,
			stage: stage ? { ...stage, endedAt: new Date().toISOString() } : undefined,
		},
	}
}

/**
 * The extractor's candidates within the document's budget: the extractor gets the budget's signal (extractor-rules
 * ends its worker thread on it), and an extractor that ignores it is not waited for past it.
 */
async function extractWithin(
	extractor: ExtractorPlugin,
	input: ExtractionInput,
	options: FormationOptions,
	deps: FormationDeps,
): Promise<MemoryCandidate[]> {
	const own = options.signal ? null : startBudget(deps.budget)
	const signal = options.signal ?? own?.limits.signal
	try {
		if (!signal) return await extractor.extract(input)
		signal.throwIfAborted()
		let onAbort = () => {}
		const aborted = new Promise<never>((_, reject) => {
			onAbort = () => reject(signal.reason)
			signal.addEventListener('abort', onAbort, { once: true })
		})
		try {
			return await Promise.race([extractor.extract({ ...input, signal }), aborted])
		} finally {
			signal.removeEventListener('abort', onAbort)
		}
	} finally {
		own?.end()
	}
}

function planOf(linker: Linker, entry: Extracted, nearest: { memoryId: string; similarity: number }[][]) {
	const { plan } = linker.plan(entry.candidates, nearest, entry.document.id)
	// A document formed for the first time sources nothing yet: there is nothing to release.
	return { ...plan, replaceDocumentSources: entry.formedBefore && !entry.incremental, formed: entry.formed }
}

function outcomeOf(deps: FormationDeps, entry: Extracted, result: FormationResult): FormationOutcome {
	deps.logger.debug('memories formed', {
		documentId: entry.document.id,
		candidates: entry.candidates.length,
		created: result.created.length,
		attached: result.attached.length,
		superseded: result.superseded.length,
		incremental: entry.incremental,
	})
	return {
		kind: 'formed',
		created: result.created.length,
		attached: result.attached.length,
		superseded: result.superseded.length,
		released: result.released,
	}
}
