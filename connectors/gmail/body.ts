import { htmlToText } from '../../core/index.ts'
import type { DecodedMessage } from './mime.ts'

/** Replies longer than this are kept whole: the reply parser's expressions are not meant for megabytes. */
const MAX_PARSED_CHARS = 200_000

/** Where mail clients put the message being replied to, in HTML bodies. */
const QUOTED_HTML = [
	'.gmail_quote',
	'.gmail_extra',
	'blockquote',
	'.moz-cite-prefix',
	'#appendonsend',
	'.yahoo_quoted',
	'[data-marker="__QUOTED_TEXT__"]',
].join(', ')

/**
 * A message's own words: text/plain when it has it, else its HTML read by the service's readability path; the
 * quoted message it replies to (and a trailing signature) left out, as the thread holds that message already.
 */
export async function ownText(message: DecodedMessage): Promise<string> {
	let text = message.text
	if (text === null && message.html !== null) text = (await htmlToText(await withoutQuotedHtml(message.html))).text
	return withoutQuotedText(text ?? '')
}

async function withoutQuotedHtml(html: string): Promise<string> {
	const { parseHTML } = await import('linkedom')
	const wrapped = /<html[\s>]/i.test(html) ? html : `<!doctype html><html><head></head><body>${html}</body></html>`
	const { document } = parseHTML(wrapped)
	for (const quoted of document.querySelectorAll(QUOTED_HTML)) {
		// A forward is new content for this thread, not a repeat of an earlier message.
		if (!/Forwarded message/i.test(quoted.textContent ?? '')) quoted.remove()
	}
	// Outlook separates the original with a rule and a "From:" block: everything after the rule goes.
	const divider = document.querySelector('#divRplyFwdMsg, hr#stopSpelling')
	if (divider) {
		let node = divider.nextSibling
		while (node) {
			const next = node.nextSibling
			node.remove()
			node = next
		}
		divider.remove()
	}
	return document.toString()
}

async function withoutQuotedText(text: string): Promise<string> {
	const normalized = text.replace(/\r\n?/g, '\n').trim()
	if (normalized.length > MAX_PARSED_CHARS) return normalized
	const { default: EmailReplyParser } = await import('email-reply-parser')
	const visible = new EmailReplyParser().read(normalized).getVisibleText().trim()
	// A message that is nothing but a quote (a bare forward) keeps its text.
	return visible || normalized
}
