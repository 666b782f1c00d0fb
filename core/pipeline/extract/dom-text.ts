/** The DOM nodes the walker reads (linkedom's, which follow the standard DOM). */
interface DomNode {
	nodeType: number
	nodeName: string
	textContent: string | null
	childNodes: ArrayLike<DomNode>
}

const SKIPPED = new Set([
	'SCRIPT',
	'STYLE',
	'TITLE',
	'NOSCRIPT',
	'TEMPLATE',
	'SVG',
	'CANVAS',
	'IFRAME',
	'OBJECT',
	'HEAD',
])
const BLOCKS = new Set([
	'P',
	'DIV',
	'SECTION',
	'ARTICLE',
	'MAIN',
	'ASIDE',
	'HEADER',
	'FOOTER',
	'NAV',
	'BLOCKQUOTE',
	'PRE',
	'FIGURE',
	'FIGCAPTION',
	'ADDRESS',
	'DL',
	'DT',
	'DD',
	'FORM',
	'FIELDSET',
	'DETAILS',
	'SUMMARY',
	'UL',
	'OL',
	'TABLE',
	'THEAD',
	'TBODY',
	'TFOOT',
	'HR',
])

/**
 * Readable text out of an HTML tree: headings become `#` lines, list items `- ` lines, table rows cells joined with
 * ` | `, other blocks paragraphs; scripts and styles are dropped. The chunker then splits on these structures.
 */
export function domToText(root: DomNode): string {
	const blocks: string[] = []
	let line = ''
	const flush = () => {
		const text = line.replace(/[ \t\u00a0]+/g, ' ').trim()
		if (text) blocks.push(text)
		line = ''
	}
	const walk = (node: DomNode) => {
		if (node.nodeType === 3) {
			line += node.textContent ?? ''
			return
		}
		if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return
		const name = node.nodeName.toUpperCase()
		if (SKIPPED.has(name)) return
		const heading = /^H([1-6])$/.exec(name)
		if (heading) {
			flush()
			line = `${'#'.repeat(Number(heading[1]))} `
			walkChildren(node)
			if (line.trim().replace(/^#+$/, '')) flush()
			else line = ''
			return
		}
		if (name === 'BR') {
			flush()
			return
		}
		if (name === 'LI') {
			flush()
			line = '- '
			walkChildren(node)
			if (line.trim() === '-') line = ''
			flush()
			return
		}
		if (name === 'TR') {
			flush()
			const cells: string[] = []
			for (const cell of Array.from(node.childNodes)) {
				if (cell.nodeType !== 1) continue
				const text = domToText(cell).replace(/\n+/g, ' ').trim()
				if (text) cells.push(text)
			}
			if (cells.length > 0) blocks.push(cells.join(' | '))
			return
		}
		const block = BLOCKS.has(name)
		if (block) flush()
		walkChildren(node)
		if (block) flush()
	}
	const walkChildren = (node: DomNode) => {
		for (const child of Array.from(node.childNodes)) walk(child)
	}
	walk(root)
	flush()
	return joinBlocks(blocks)
}

/** Blocks separated by blank lines, except consecutive list items and table rows, which stay together. */
function joinBlocks(blocks: string[]): string {
	let text = ''
	let previous = ''
	for (const block of blocks) {
		const tight =
			(block.startsWith('- ') && previous.startsWith('- ')) ||
			(block.includes(' | ') && previous.includes(' | ') && !block.startsWith('#'))
		text += text ? (tight ? '\n' : '\n\n') : ''
		text += block
		previous = block
	}
	return text
}
