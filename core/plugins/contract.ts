import type { Logger } from '../logger.ts'
import type { AnyConnector } from './connector.ts'
import type { FilesPlugin } from './files.ts'
import type { Storage } from './storage.ts'

/** The plugin API version this core speaks. A plugin declaring another version is refused at startup. */
export const PLUGIN_API_VERSION = 1

export type PluginKind = 'storage' | 'files' | 'embedder' | 'extractor' | 'reranker' | 'connector'

/** What every plugin receives in `init`. */
export interface PluginContext {
	logger: Logger
	/** The service configuration (already resolved from memory.config.ts or the environment). */
	env: Record<string, string | undefined>
	/** The vector space of the configured embedder: storage uses it to size its vector columns. */
	vectorSpace: VectorSpace
	/**
	 * The started storage plugin, for files and connector plugins. Storage, embedders, extractors and rerankers
	 * initialise at the same time and get none.
	 */
	storage?: Storage
}

export interface PluginBase<K extends PluginKind> {
	apiVersion: number
	kind: K
	/** Unique per kind, e.g. `embedder-local`. */
	name: string
	init?(ctx: PluginContext): Promise<void> | void
	close?(): Promise<void> | void
}

/** Identifies a vector space: vectors from two different spaces must never be compared. */
export interface VectorSpace {
	/** Stable id of model + combination method, e.g. `local:wink-sg-100d:sif-1`. */
	id: string
	dimensions: number
}

export type EmbedPurpose = 'document' | 'query'

export interface EmbedderPlugin extends PluginBase<'embedder'> {
	readonly space: VectorSpace
	/** One unit-length vector per text, in order. */
	embed(texts: string[], purpose: EmbedPurpose): Promise<Float32Array[]>
}

export interface RerankerPlugin extends PluginBase<'reranker'> {
	/** Relevance scores in 0..1, one per candidate, in the candidates' order. */
	rerank(query: string, candidates: string[]): Promise<number[]>
}

/** One turn of a conversation, as said by a named speaker (a person's name, or a role such as user/assistant). */
export interface ConversationTurn {
	speaker: string
	text: string
	/** Position of the turn in the whole conversation, zero-based. */
	index: number
}

/** What an extractor is given: a document's text, or a conversation's (new) turns, with the context to resolve them. */
export interface ExtractionInput {
	documentId: string
	containerTag: string
	/** The document's text (for a conversation: the new turns rendered as `speaker: text` lines). */
	text: string
	/** Parsed turns when the content is a conversation, else null. Only turns not extracted before are given. */
	turns: ConversationTurn[] | null
	/** When the content was written or said (ISO 8601); relative dates ("last week") are resolved against it. */
	date: string | null
	/** Who the container is about ("The user is Alex, a nurse in Boston"), from the request or the container. */
	entityContext: string | null
	/** Chunk positions of the document, so candidates can point at their source chunks. */
	chunks: { position: number; content: string }[]
	/**
	 * The container's configured buckets (profile categories), when it has any: an extractor that can sort statements
	 * (the LLM extractor) puts their keys in `MemoryCandidate.buckets`.
	 */
	buckets?: { key: string; description: string }[]
	/**
	 * Aborts when the document's time budget is spent (its reason says so): stop then. Core stops waiting for the
	 * extraction at that point anyway; CPU-heavy extractors run in a worker thread (`runIsolated`) they can end.
	 */
	signal?: AbortSignal
}

/** One atomic, self-contained statement an extractor found. Core decides whether it is new, a duplicate or a version. */
export interface MemoryCandidate {
	/** Third-person, self-contained: "Caroline adopted a puppy in the week before 2023-05-08". */
	content: string
	/** Durable trait (identity, relationship, work, home, lasting preference) rather than an event or passing state. */
	isStatic: boolean
	/** Who or what the statement is about, normalized ("Caroline"); null when unclear. */
	subject: string | null
	/**
	 * What about the subject it states, as a short stable key ("residence", "job", "pet", "favourite food"): two
	 * statements with the same subject and attribute but different values make a new version (`updates`).
	 */
	attribute: string | null
	/** The value of the attribute ("Seattle"), when the statement has one. */
	value: string | null
	/** Dates the statement refers to (ISO dates), after resolving relative expressions. */
	eventDates: string[]
	/** Chunk positions (of ExtractionInput.chunks) the statement came from. */
	sourcePositions: number[]
	/** Turn indexes (of ExtractionInput.turns) the statement came from, for conversations. */
	sourceTurns: number[]
	/** For inferences drawn from several statements of this same extraction: their indexes in the returned list. */
	derivedFrom?: number[]
	/** Bucket keys the statement belongs to, when the extractor can sort it (the LLM extractor). */
	buckets?: string[]
}

export interface ExtractorPlugin extends PluginBase<'extractor'> {
	extract(input: ExtractionInput): Promise<MemoryCandidate[]>
	/**
	 * A short summary of a document's text (a few sentences, at most SUMMARY_MAX characters); null leaves it to the
	 * offline extractive summary. Optional: only extractors that write (a language model) have one.
	 */
	summarize?(input: { text: string; title: string | null }): Promise<string | null>
}

export type StoragePlugin = PluginBase<'storage'> & Storage

export type Plugin = StoragePlugin | FilesPlugin | EmbedderPlugin | ExtractorPlugin | RerankerPlugin | AnyConnector
