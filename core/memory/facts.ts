import type { ExtractorPlugin, MemoryCandidate } from '../plugins/contract.ts'

const CONCURRENCY = 4

/**
 * What the extractor says each statement is about, for memories written directly through the API: their text is
 * kept as given, but a single statement the extractor finds in it lends its subject, attribute, value and dates,
 * so a directly written fact versions like an extracted one. Null where there is no extractor or no single statement.
 */
export async function factsOf(
	extractor: ExtractorPlugin | null,
	contents: string[],
	context: { containerTag: string; documentId: string; date: string; entityContext?: string | null },
): Promise<(MemoryCandidate | null)[]> {
	if (!extractor) return contents.map(() => null)
	const results: (MemoryCandidate | null)[] = new Array(contents.length).fill(null)
	let next = 0
	const worker = async () => {
		while (next < contents.length) {
			const index = next++
			const text = contents[index]!
			try {
				const found = await extractor.extract({
					documentId: context.documentId,
					containerTag: context.containerTag,
					text,
					turns: null,
					date: context.date,
					entityContext: context.entityContext ?? null,
					chunks: [{ position: 0, content: text }],
				})
				results[index] = found.length === 1 ? found[0]! : null
			} catch {
				results[index] = null
			}
		}
	}
	await Promise.all(Array.from({ length: Math.min(CONCURRENCY, contents.length) }, worker))
	return results
}
