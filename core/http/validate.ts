import type { Static, TSchema } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'

export type Checked<T> = { ok: true; value: T } | { ok: false; details: string }

/**
 * A compiled check of a value against a route schema, for input Elysia cannot validate itself (batch items one by
 * one, JSON text inside multipart fields). Its message names the field the way the user wrote it.
 */
export function validator<T extends TSchema>(schema: T) {
	const compiled = TypeCompiler.Compile(schema)
	return (value: unknown, field: string): Checked<Static<T>> => {
		if (compiled.Check(value)) return { ok: true, value: value as Static<T> }
		const first = compiled.Errors(value).First()
		const custom = (first?.schema as { error?: unknown } | undefined)?.error
		const message = typeof custom === 'string' ? custom : (first?.message ?? 'is invalid')
		return { ok: false, details: `${fieldName(field, first?.path ?? '')}: ${message}` }
	}
}

/** `documents[3]` + `/metadata/a` → `documents[3].metadata.a`. */
function fieldName(field: string, path: string): string {
	const parts = path.split('/').filter(Boolean)
	return parts.reduce(
		(name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name ? `${name}.${part}` : part),
		field,
	)
}
