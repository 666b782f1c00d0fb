import type { OfficeContentNode, OfficeError, OfficeParserAST } from 'officeparser'
import { PermanentStageError } from '../../errors.ts'
import { rowsToText } from './table-text.ts'
import { normalizeExtractedText, shortTitle } from './text.ts'

export interface OfficeText {
	text: string
	title: string | null
}

/**
 * Text of a DOCX, PPTX or XLSX file (officeparser): headings as `#` lines, slides and sheets as sections, sheet rows
 * as `header: value` records. The zip is inflated under a total limit, so a zip bomb fails instead of filling memory.
 */
export async function officeToText(
	bytes: Uint8Array,
	kind: 'docx' | 'pptx' | 'xlsx',
	limits: { maxUncompressedBytes: number },
): Promise<OfficeText> {
	let ast: OfficeParserAST
	// Loaded on first use: the parser takes ~50 ms to load, which every start would otherwise pay.
	const { parseOffice } = await import('officeparser')
	try {
		ast = await parseOffice(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
			fileType: kind,
			decompressionLimits: { maxUncompressedBytes: limits.maxUncompressedBytes, maxZipEntries: 10_000 },
			ignoreComments: true,
			extractAttachments: false,
			ocr: false,
			ignorePageGeometry: true,
		})
	} catch (error) {
		throw describeOfficeError(error, limits.maxUncompressedBytes)
	}
	const text = normalizeExtractedText(nodesToText(ast.content))
	const title = typeof ast.metadata?.title === 'string' ? shortTitle(ast.metadata.title) : null
	return { text, title }
}

function describeOfficeError(error: unknown, limit: number): PermanentStageError {
	const code = (error as OfficeError).officeIssue?.code as string | undefined
	const message = (error instanceof Error ? error.message : String(error)).replace(/^\[OfficeParser\]:\s*/, '')
	switch (code) {
		case 'ZIP_SIZE_LIMIT_EXCEEDED':
			return new PermanentStageError(
				`the file inflates to more than ${limit} bytes (a zip bomb?); the limit is MEMORY_MAX_UNCOMPRESSED_BYTES`,
			)
		case 'ZIP_ENTRY_COUNT_LIMIT_EXCEEDED':
			return new PermanentStageError('the file holds too many zip entries (a zip bomb?)')
		case 'PASSWORD_REQUIRED':
		case 'PASSWORD_INCORRECT':
		case 'DOCUMENT_DECRYPTION_FAILED':
			return new PermanentStageError('the file is encrypted with a password')
		default:
			return new PermanentStageError(`the file is malformed: ${message}`)
	}
}

function nodesToText(nodes: OfficeContentNode[] | undefined): string {
	return (nodes ?? [])
		.map(nodeToText)
		.filter((block) => block.trim())
		.join('\n\n')
}

function nodeToText(node: OfficeContentNode): string {
	const metadata = (node.metadata ?? {}) as Record<string, unknown>
	switch (node.type) {
		case 'heading': {
			const level = Math.min(6, Math.max(1, Number(metadata.level) || 1))
			return `${'#'.repeat(level)} ${flat(node)}`
		}
		case 'paragraph':
		case 'text':
		case 'code':
			return flat(node)
		case 'list': {
			const indent = '  '.repeat(Math.max(0, Number(metadata.indentation) || 0))
			const items = node.children?.length ? node.children.map(flat) : [flat(node)]
			return items
				.filter(Boolean)
				.map((item) => `${indent}- ${item}`)
				.join('\n')
		}
		case 'slide': {
			const body = nodesToText(node.children)
			return body ? `## Slide ${metadata.slideNumber ?? '?'}\n\n${body}` : ''
		}
		case 'sheet':
			return `## ${String(metadata.sheetName ?? 'Sheet')}\n\n${rowsToText(rowsOf(node))}`
		case 'table':
			return rowsOf(node)
				.map((cells) => cells.filter(Boolean).join(' | '))
				.filter(Boolean)
				.join('\n')
		case 'note': {
			const text = flat(node)
			// Slide notes often hold only the slide number.
			return /^\d*$/.test(text) ? '' : text
		}
		case 'image':
		case 'chart':
		case 'drawing':
		case 'break':
		case 'comment':
		case 'slideMaster':
			return ''
		default:
			return node.children?.length ? nodesToText(node.children) : flat(node)
	}
}

/** A node's text on one line. */
function flat(node: OfficeContentNode): string {
	return (node.text ?? '').replace(/\s+/g, ' ').trim()
}

/** Rows of cells; spreadsheet cells carry their column, so an empty cell that was left out keeps its place. */
function rowsOf(node: OfficeContentNode): string[][] {
	return (node.children ?? [])
		.filter((row) => row.type === 'row')
		.map((row) => {
			const cells: string[] = []
			for (const [i, cell] of (row.children ?? []).entries()) {
				const column = Number((cell.metadata as { col?: unknown } | undefined)?.col)
				cells[Number.isInteger(column) && column >= 0 && column < 1000 ? column : i] = flat(cell)
			}
			return Array.from(cells, (cell) => cell ?? '')
		})
}
