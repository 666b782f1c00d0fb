import { domToText } from './dom-text.ts'
import { shortTitle } from './text.ts'

export interface HtmlText {
	text: string
	title: string | null
}

/**
 * The readable main text of a page (Mozilla Readability, as Firefox Reader View) with its title. A page Readability
 * finds no article in (a short page, a listing) falls back to the text of its whole body.
 */
export async function htmlToText(html: string): Promise<HtmlText> {
	// Loaded on first use (~30 ms that every start would otherwise pay).
	const [{ parseHTML }, { Readability }] = await Promise.all([import('linkedom'), import('@mozilla/readability')])
	const source = asDocument(html)
	const { document } = parseHTML(source)
	const pageTitle = shortTitle(document.querySelector('title')?.textContent ?? '')
	// Readability changes the tree it reads, so it gets its own copy and the fallback keeps the original.
	const article = readArticle(source, parseHTML, Readability)
	if (article) {
		const { document: articleDom } = parseHTML(`<!doctype html><html><body>${article.content}</body></html>`)
		const text = domToText(articleDom.body)
		if (text) return { text, title: shortTitle(article.title ?? '') ?? pageTitle }
	}
	return { text: domToText(document.body ?? document), title: pageTitle }
}

/**
 * linkedom builds a document only from markup with a root element: plain text (a `.txt` labelled text/html) or a
 * fragment gets no `documentElement`, and its `body` throws. Such input is wrapped in a document first.
 */
function asDocument(html: string): string {
	return /<html[\s>]/i.test(html) ? html : `<!doctype html><html><head></head><body>${html}</body></html>`
}

function readArticle(
	html: string,
	parseHTML: typeof import('linkedom').parseHTML,
	Readability: typeof import('@mozilla/readability').Readability,
): { content: string; title: string | null } | null {
	try {
		const { document } = parseHTML(html)
		// biome-ignore lint/suspicious/noExplicitAny: linkedom's Document is the DOM Readability expects
		const article = new Readability(document as any, { charThreshold: 200 }).parse()
		if (!article?.content) return null
		return { content: article.content, title: article.title ?? null }
	} catch {
		return null
	}
}
