import type { Block } from './blocks.ts'
import { markdownText, plainText } from './rich-text.ts'

/** A Notion page's web address from its id. */
export const notionUrl = (id: string) => `https://www.notion.so/${id.replaceAll('-', '')}`

type Field = Record<string, unknown> | undefined
const LIST_ITEMS = new Set(['bulleted_list_item', 'numbered_list_item', 'to_do'])
const CONTAINERS = new Set(['column_list', 'column', 'synced_block', 'tab'])
const SKIPPED = new Set(['breadcrumb', 'table_of_contents', 'unsupported_placeholder'])
const MEDIA: Record<string, string> = { image: 'Image', video: 'Video', audio: 'Audio', file: 'File', pdf: 'PDF' }

/** Blocks as Markdown-like text: one block after another, list items on consecutive lines, nesting indented. */
export function renderBlocks(blocks: Block[] | undefined): string {
	const parts: { text: string; listItem: boolean }[] = []
	let number = 0
	for (const block of blocks ?? []) {
		number = block.type === 'numbered_list_item' ? number + 1 : 0
		let text: string
		try {
			text = renderBlock(block, number)
		} catch {
			text = ''
		}
		if (text.trim() !== '') parts.push({ text, listItem: LIST_ITEMS.has(block.type) })
	}
	return parts
		.map((part, i) => (i === 0 ? '' : part.listItem && parts[i - 1]!.listItem ? '\n' : '\n\n') + part.text)
		.join('')
}

function renderBlock(block: Block, number: number): string {
	const field = block[block.type] as Field
	const text = () => markdownText(field?.rich_text)
	const children = () => renderBlocks(block.children)
	switch (block.type) {
		case 'paragraph':
			return join(text(), children())
		case 'heading_1':
		case 'heading_2':
		case 'heading_3':
		case 'heading_4':
			return join(`${'#'.repeat(Number(block.type.slice(-1)))} ${text()}`, children())
		case 'bulleted_list_item':
			return item('- ', text(), children())
		case 'numbered_list_item':
			return item(`${number}. `, text(), children())
		case 'to_do':
			return item(field?.checked === true ? '- [x] ' : '- [ ] ', text(), children())
		case 'toggle':
			return item('▸ ', text(), children())
		case 'quote':
			return quote(join(text(), children()))
		case 'callout': {
			const icon = (field?.icon as { emoji?: string } | null | undefined)?.emoji
			return quote(join(`${icon ? `${icon} ` : ''}${text()}`, children()))
		}
		case 'code': {
			const language = typeof field?.language === 'string' && field.language !== 'plain text' ? field.language : ''
			return join(`\`\`\`${language}\n${plainText(field?.rich_text)}\n\`\`\``, markdownText(field?.caption))
		}
		case 'equation':
			return `$$\n${String(field?.expression ?? '')}\n$$`
		case 'divider':
			return '---'
		case 'table':
			return table(block)
		case 'table_row':
			return row(block)
		case 'child_page':
			return link(String(field?.title ?? '') || 'Untitled page', notionUrl(block.id))
		case 'child_database':
			return link(String(field?.title ?? '') || 'Untitled database', notionUrl(block.id))
		case 'link_to_page': {
			const target = String(field?.page_id ?? field?.database_id ?? '')
			return target ? link('Linked page', notionUrl(target)) : ''
		}
		case 'bookmark':
		case 'embed':
		case 'link_preview': {
			const url = String(field?.url ?? '')
			return url ? link(markdownText(field?.caption) || url, url) : ''
		}
		case 'template':
			return join(text(), children())
		default:
			if (block.type in MEDIA) return media(block.type, field)
			if (CONTAINERS.has(block.type)) return children()
			if (SKIPPED.has(block.type)) return ''
			// An unknown or unsupported type: whatever text it carries, else only its children.
			return join(markdownText(field?.rich_text) || markdownText(field?.title), children())
	}
}

const join = (...parts: string[]) => parts.filter((part) => part.trim() !== '').join('\n\n')

const indent = (text: string, prefix: string) =>
	text
		.split('\n')
		.map((line) => (line === '' ? line : `${prefix}${line}`))
		.join('\n')

function item(marker: string, text: string, children: string): string {
	const nested = children ? `\n${indent(children, ' '.repeat(marker.length))}` : ''
	return `${marker}${text}${nested}`
}

const quote = (text: string) =>
	text
		.split('\n')
		.map((line) => (line === '' ? '>' : `> ${line}`))
		.join('\n')

const link = (label: string, url: string) => `[${label.replaceAll(/[[\]]/g, '')}](${url})`

function media(type: string, field: Field): string {
	const caption = markdownText(field?.caption) || String(field?.name ?? '')
	const external = (field?.external as { url?: string } | undefined)?.url
	const label = `${MEDIA[type]}${caption ? `: ${caption}` : ''}`
	return external ? link(label, external) : label
}

function row(block: Block): string {
	const cells = (block.table_row as { cells?: unknown[] } | undefined)?.cells ?? []
	return `| ${cells.map((cell) => markdownText(cell).replaceAll('|', '\\|').replaceAll('\n', ' ')).join(' | ')} |`
}

function table(block: Block): string {
	const rows = (block.children ?? []).filter((child) => child.type === 'table_row').map(row)
	if (rows.length === 0) return ''
	const columns = (block.children?.[0]?.table_row as { cells?: unknown[] } | undefined)?.cells?.length ?? 1
	const separator = `|${' --- |'.repeat(columns)}`
	return [rows[0], separator, ...rows.slice(1)].join('\n')
}
