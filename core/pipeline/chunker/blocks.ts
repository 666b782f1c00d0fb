import { closesFence, fenceOpening } from './fence.ts'

export type BlockKind = 'paragraph' | 'list' | 'table' | 'code'

/** A unit the packer keeps whole when it fits: a paragraph, a whole list, a table or a fenced code block. */
export interface Block {
	kind: BlockKind
	text: string
}

const LIST_ITEM = /^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\S/
const TABLE_ROW = /^[ \t]*\|/
const INDENTED = /^[ \t]+\S/

const isBlank = (line: string) => line.trim() === ''

/** Splits a section body into blocks separated by blank lines, keeping lists, tables and code fences together. */
export function splitBlocks(body: string): Block[] {
	const lines = body.split('\n')
	const blocks: Block[] = []
	let i = 0
	const take = (kind: BlockKind, end: number) => {
		blocks.push({ kind, text: lines.slice(i, end).join('\n').trim() })
		i = end
	}
	while (i < lines.length) {
		const line = lines[i]!
		if (isBlank(line)) i++
		else if (fenceOpening(line)) take('code', fenceEnd(lines, i))
		else if (LIST_ITEM.test(line)) take('list', listEnd(lines, i))
		else if (TABLE_ROW.test(line))
			take(
				'table',
				runEnd(lines, i, (next) => TABLE_ROW.test(next)),
			)
		else
			take(
				'paragraph',
				runEnd(lines, i, (next) => !isBlank(next) && !fenceOpening(next) && !LIST_ITEM.test(next)),
			)
	}
	return blocks
}

/** The index after the closing fence, or the end of the text when the fence is never closed. */
function fenceEnd(lines: string[], start: number): number {
	const marker = fenceOpening(lines[start]!)!
	for (let i = start + 1; i < lines.length; i++) if (closesFence(lines[i]!, marker)) return i + 1
	return lines.length
}

/** A list runs on across blank lines while the next text is another item or indented (an item's continuation). */
function listEnd(lines: string[], start: number): number {
	let end = start + 1
	for (let i = start + 1; i < lines.length; i++) {
		const line = lines[i]!
		if (isBlank(line)) continue
		const continues = LIST_ITEM.test(line) || INDENTED.test(line) || (end === i && !fenceOpening(line))
		if (!continues) break
		end = i + 1
	}
	return end
}

function runEnd(lines: string[], start: number, continues: (line: string) => boolean): number {
	let end = start + 1
	while (end < lines.length && continues(lines[end]!)) end++
	return end
}
