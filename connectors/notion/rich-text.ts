/** A rich-text item as Notion sends it; read defensively, since a malformed one must not fail its page. */
export interface RichText {
	type?: string
	plain_text?: string
	href?: string | null
	annotations?: { bold?: boolean; italic?: boolean; strikethrough?: boolean; code?: boolean }
	equation?: { expression?: string }
}

/** Plain text of a rich-text array (titles, metadata). */
export function plainText(items: unknown): string {
	if (!Array.isArray(items)) return ''
	return items.map((item: RichText) => (typeof item?.plain_text === 'string' ? item.plain_text : '')).join('')
}

/** Rich text as Markdown: bold, italic, strikethrough, inline code, links and inline equations. */
export function markdownText(items: unknown): string {
	if (!Array.isArray(items)) return ''
	return items.map((item: RichText) => inline(item)).join('')
}

function inline(item: RichText): string {
	if (!item || typeof item !== 'object') return ''
	if (item.type === 'equation' && item.equation?.expression) return `$${item.equation.expression}$`
	let text = typeof item.plain_text === 'string' ? item.plain_text : ''
	if (text.trim() === '') return text
	const a = item.annotations ?? {}
	if (a.code) text = `\`${text}\``
	else {
		if (a.bold) text = `**${text}**`
		if (a.italic) text = `_${text}_`
		if (a.strikethrough) text = `~~${text}~~`
	}
	if (typeof item.href === 'string' && item.href) text = `[${text}](${item.href})`
	return text
}
