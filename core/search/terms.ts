/** Lower-cased word tokens of a query, for the full-text side (storage builds its own tsquery from them). */
export function queryTerms(query: string): string[] {
	const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
	return [...new Set(words)].slice(0, 64)
}
