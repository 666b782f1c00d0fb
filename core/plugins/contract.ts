import type { Logger } from '../logger.ts'
import type { Storage } from './storage.ts'

/** The plugin API version this core speaks. A plugin declaring another version is refused at startup. */
export const PLUGIN_API_VERSION = 1

export type PluginKind = 'storage' | 'embedder' | 'extractor' | 'reranker' | 'connector'

/** What every plugin receives in `init`. */
export interface PluginContext {
	logger: Logger
	/** The service configuration (already resolved from memory.config.ts or the environment). */
	env: Record<string, string | undefined>
	/** The vector space of the configured embedder: storage uses it to size its vector columns. */
	vectorSpace: VectorSpace
	/** The started storage plugin; absent only while storage itself initialises. */
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

/** Extractors and connectors get their full contracts with the memory engine and connector work. */
export interface ExtractorPlugin extends PluginBase<'extractor'> {
	[method: string]: unknown
}

export interface ConnectorPlugin extends PluginBase<'connector'> {
	[method: string]: unknown
}

export type StoragePlugin = PluginBase<'storage'> & Storage

export type Plugin = StoragePlugin | EmbedderPlugin | ExtractorPlugin | RerankerPlugin | ConnectorPlugin
