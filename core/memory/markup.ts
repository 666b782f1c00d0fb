/** JSON key-value pairs (`"role":"user"`), object boundaries (`},{`) and HTML/XML tags. */
const MARKUP = /"\s*:\s*["{[\d]|\}\s*,\s*\{|<\/?[a-z][\w-]*(?:\s[^>]*)?>/i
/** Above this share of brackets, quotes and the like, a statement is code or data, not something said. */
const MAX_SYMBOL_SHARE = 0.1

/**
 * Statements an extractor read out of raw markup (a JSON chat it did not recognise, HTML source): they are
 * fragments, not memories, so formation drops them.
 */
export function looksLikeMarkup(statement: string): boolean {
	if (MARKUP.test(statement)) return true
	const symbols = statement.match(/[{}[\]"<>=\\|]/g)?.length ?? 0
	return symbols > MAX_SYMBOL_SHARE * statement.length
}
