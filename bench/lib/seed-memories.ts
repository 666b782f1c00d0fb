import { contentHash } from '../../core/documents/service.ts'
import { newId, type Scope } from '../../core/index.ts'
import { contentKey } from '../../core/memory/normalize.ts'
import type { StartedPlugins } from '../../core/plugins/registry.ts'
import { TextGenerator } from '../../testkit/text.ts'
import { loadVocabulary } from './vocabulary.ts'

const BATCH = 500

/**
 * Writes `count` memories into a container straight through the storage plugin's formation transaction, 500 per
 * source document, embedded with the real embedder but without extraction or linking (POST /v4/memories does both
 * and is far too slow to seed 100k). Each memory is a latest first version.
 */
export async function seedMemories(
	{ storage, embedder }: StartedPlugins,
	scope: Scope,
	options: { containerTag: string; count: number; seed: number },
): Promise<number> {
	const generator = new TextGenerator(options.seed, await loadVocabulary())
	let written = 0
	while (written < options.count) {
		const texts = Array.from({ length: Math.min(BATCH, options.count - written) }, () => generator.memory())
		const vectors = await embedder.embed(texts, 'document')
		const documentId = newId()
		await storage.memories.form(
			scope,
			options.containerTag,
			null,
			{ vectors: [], neighbours: 0, contentKeys: [], facts: [] },
			() => ({
				documentId,
				createDocument: {
					id: documentId,
					containerTag: options.containerTag,
					content: texts.join('\n'),
					contentHash: contentHash(texts.join('\n')),
					title: null,
					metadata: { seeded: true },
				},
				create: texts.map((memory, i) => {
					const id = newId()
					return {
						id,
						memory,
						contentKey: contentKey(memory),
						embedding: vectors[i]!,
						version: 1,
						parentMemoryId: null,
						rootId: id,
						isLatest: true,
						// One in five is a durable fact, so a profile reads a realistic static section.
						isStatic: i % 5 === 0,
						isInference: false,
						subject: null,
						attribute: null,
						value: null,
						metadata: null,
						eventDates: [],
						buckets: [],
						forgetAfter: null,
						forgetReason: null,
						source: { chunkPositions: [], turnIndexes: [i] },
					}
				}),
				attach: [],
				supersede: [],
				links: [],
				replaceDocumentSources: false,
			}),
		)
		written += texts.length
	}
	return written
}
