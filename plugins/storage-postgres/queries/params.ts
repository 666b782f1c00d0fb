/** Collects positional parameters while a statement is built, so values never end up in the SQL text. */
export class Params {
	readonly values: unknown[] = []

	/** Adds a value and returns its placeholder (`$n`). */
	add(value: unknown): string {
		this.values.push(value === undefined ? null : value)
		return `$${this.values.length}`
	}
}

export interface Statement {
	text: string
	params: unknown[]
}

/** A jsonb parameter: JSON text, or SQL NULL for null. */
export function jsonParam(value: unknown): string | null {
	return value === null || value === undefined ? null : JSON.stringify(value)
}

/**
 * pgvector's text form, `[a,b,c]`, cast with `::vector` in SQL. Components are written with seven decimals, as
 * integers with an exponent (`1427114e-7`): pgvector keeps float32 (about seven significant digits) and embedders'
 * unit-length vectors have components below 1, so nothing that matters is lost, and an integer turns into text
 * faster than a fraction (docs/measurements.md).
 */
export function vectorParam(vector: Float32Array): string {
	if (vector.length === 0) return '[]'
	const scaled = new Array<number>(vector.length)
	for (let i = 0; i < vector.length; i++) scaled[i] = Math.round(vector[i]! * 1e7)
	return `[${scaled.join('e-7,')}e-7]`
}

/** PostgreSQL text cannot hold NUL characters; dropping them is the only way to store such input. */
export function textParam<T extends string | null>(text: T): T {
	return (text === null ? null : text.replaceAll('\u0000', '')) as T
}

/** A LIKE pattern matching every string that starts with `prefix`. */
export function likePrefix(prefix: string): string {
	return `${prefix.replace(/[\\%_]/g, '\\$&')}%`
}

/** The driver's error for a unique-constraint violation (both drivers expose the SQLSTATE as `code`). */
export function isUniqueViolation(error: unknown): boolean {
	return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505'
}
