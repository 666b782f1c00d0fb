import { contentHash } from '../../core/documents/service.ts'
import { PIPELINE_STAGES, type Scope, type StageRecord } from '../../core/index.ts'
import { chunkText } from '../../core/pipeline/chunker.ts'
import type { StartedPlugins } from '../../core/plugins/registry.ts'
import { TextGenerator } from '../../testkit/text.ts'
import { loadVocabulary } from './vocabulary.ts'

export interface SeedRequest {
	containerTag: string
	/** Stop once the container holds at least this many new chunks. */
	chunks: number
	/** Size of each generated document; ~9 KB of prose makes ~10 chunks. */
	documentBytes: number
	seed: number
	/** Documents written at once (PostgreSQL has a pool; the embedded store serialises anyway). */
	concurrency: number
}

/**
 * Writes finished documents straight through the storage plugin, the way the pipeline does (store, extract, stage
 * chunks, embed with the real embedder, publish, mark done), without the HTTP layer or the job queue. Returns the
 * number of documents and chunks written.
 */
export async function seedDocuments(
	plugins: StartedPlugins,
	scope: Scope,
	request: SeedRequest,
): Promise<{ documents: number; chunks: number }> {
	const generator = new TextGenerator(request.seed, await loadVocabulary())
	let chunks = 0
	let documents = 0
	const writeOne = async () => {
		const content = generator.prose(request.documentBytes)
		const pieces = chunkText(content)
		chunks += pieces.length
		documents++
		await writeDocument(plugins, scope, request.containerTag, content, pieces)
	}
	const worker = async () => {
		while (chunks < request.chunks) await writeOne()
	}
	await Promise.all(Array.from({ length: request.concurrency }, worker))
	return { documents, chunks }
}

async function writeDocument(
	{ storage, embedder }: StartedPlugins,
	scope: Scope,
	containerTag: string,
	content: string,
	pieces: { position: number; content: string }[],
): Promise<void> {
	const hash = contentHash(content)
	const { document } = await storage.documents.upsert(scope, {
		containerTag,
		customId: null,
		content,
		contentHash: hash,
		type: 'text',
		taskType: 'memory',
		dreaming: 'instant',
		metadata: { seeded: true },
		filepath: null,
		entityContext: null,
		title: null,
		url: null,
		source: 'text',
	})
	await storage.documents.setExtracted(document.id, document.contentHash, { text: content, title: null, type: 'text' })
	const vectors = await embedder.embed(
		pieces.map((piece) => piece.content),
		'document',
	)
	await storage.chunks.stage(
		document.id,
		pieces.map((piece, i) => ({ ...piece, type: 'text' as const, metadata: null, embedding: vectors[i]! })),
	)
	await storage.chunks.publish(document.id)
	const now = new Date().toISOString()
	const stages: StageRecord[] = PIPELINE_STAGES.map((stage) => ({ stage, startedAt: now, endedAt: now, outcome: 'ok' }))
	await storage.documents.setProgress(document.id, {
		contentHash: hash,
		status: 'done',
		stages,
		error: null,
		dreamingStatus: 'done',
	})
}

/** Seeds `containers` containers named `other-N`, each with about `chunksEach` chunks, as the neighbours of a search. */
export async function seedOtherContainers(
	plugins: StartedPlugins,
	scope: Scope,
	options: { containers: number; chunksEach: number; concurrency: number; onProgress?: (done: number) => void },
): Promise<{ documents: number; chunks: number }> {
	let next = 0
	const total = { documents: 0, chunks: 0 }
	const worker = async () => {
		while (next < options.containers) {
			const index = next++
			const seeded = await seedDocuments(plugins, scope, {
				containerTag: `other-${index}`,
				chunks: options.chunksEach,
				documentBytes: Math.max(400, options.chunksEach * 850),
				seed: 1_000_000 + index,
				concurrency: 1,
			})
			total.documents += seeded.documents
			total.chunks += seeded.chunks
			options.onProgress?.(index + 1)
		}
	}
	await Promise.all(Array.from({ length: options.concurrency }, worker))
	return total
}
