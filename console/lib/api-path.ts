/**
 * An API path whose every interpolated value is exactly one path segment (or query value), however it is spelled:
 * `apiPath\`/v3/documents/${id}\`` stays on that route for an id holding `/`, `?`, `#` or `%`. `.` and `..`, which a
 * URL resolves away whatever their encoding, cannot be a segment at all and are refused.
 */
export function apiPath(strings: TemplateStringsArray, ...values: (string | number | boolean)[]): string {
	return strings.reduce((path, text, i) => {
		if (i === 0) return text
		const value = String(values[i - 1])
		if (value === '.' || value === '..') throw new Error(`"${value}" cannot be a path segment`)
		return `${path}${encodeURIComponent(value)}${text}`
	}, '')
}
