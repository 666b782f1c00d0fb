import { badRequest } from '../../errors.ts'

const RULE = 'must not contain NUL characters (U+0000) or unpaired UTF-16 surrogates'

/** A string PostgreSQL and UTF-8 can hold as sent: no NUL, no lone surrogate. */
export function isStorableText(text: string): boolean {
	return text.isWellFormed() && !text.includes('\u0000')
}

/** The first field (as the user wrote it, e.g. `metadata.a` or `containerTags[1]`) holding unstorable text, if any. */
export function unstorableField(value: unknown, path: string, label = path): string | null {
	if (typeof value === 'string') return isStorableText(value) ? null : path
	if (Array.isArray(value)) {
		for (let i = 0; i < value.length; i++) {
			const found = unstorableField(value[i], `${path}[${i}]`, label)
			if (found) return found
		}
		return null
	}
	// Uploaded files are bytes, not text; path parameters from the runtime's router have no prototype.
	if (value === null || typeof value !== 'object' || value instanceof Blob) return null
	for (const [key, item] of Object.entries(value)) {
		const field = path ? `${path}.${key}` : key
		if (!isStorableText(key)) return `${path || label} (a key)`
		const found = unstorableField(item, field, label)
		if (found) return found
	}
	return null
}

/** Throws the 400 of the one rule when a JSON text field, once parsed, holds unstorable text. */
export function assertStorable(value: unknown, field: string, label = field): void {
	const found = unstorableField(value, field, label)
	if (found) throw badRequest(`${found}: ${RULE}`)
}

/**
 * One rule for text everywhere: a path parameter, query parameter or body field (keys included, at any depth) with a
 * NUL or an unpaired surrogate is refused with 400 naming the field. Called once the key is checked, before validation.
 */
export function assertRequestStorable(request: { params?: unknown; query?: unknown; body?: unknown }): void {
	assertStorable(request.params, '', 'path')
	assertStorable(request.query, '', 'query')
	assertStorable(request.body, '', 'body')
}
