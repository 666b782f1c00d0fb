import { type BlockKind, splitBlocks } from './blocks.ts'
import { byLines, byListItems, bySentences, byWords, type Splitter, splitToFit } from './split.ts'

/** How a block too long for one chunk is cut, coarse to fine. */
const SPLITTERS: Record<BlockKind, Splitter[]> = {
	paragraph: [bySentences, byWords],
	list: [byListItems, bySentences, byWords],
	table: [byLines, byWords],
	code: [byLines, byWords],
}

/** Chunks of at most `budget` characters: whole blocks packed together, a block too long for one chunk split. */
export function chunkBody(body: string, budget: number): string[] {
	const chunks: string[] = []
	let current = ''
	for (const block of splitBlocks(body)) {
		if (current && current.length + 2 + block.text.length <= budget) {
			current += `\n\n${block.text}`
			continue
		}
		if (current) chunks.push(current)
		if (block.text.length <= budget) {
			current = block.text
			continue
		}
		const parts = splitToFit(block.text, budget, SPLITTERS[block.kind])
		current = parts.pop() ?? ''
		chunks.push(...parts)
	}
	if (current) chunks.push(current)
	return chunks
}
