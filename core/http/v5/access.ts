import { Elysia } from 'elysia'
import { assertTagAllowed } from '../../auth/restriction.ts'
import type { Principal } from '../../auth/verifier.ts'

/** A namespace is a container tag: a key restricted to tags reaches only its own (403 otherwise). */
export function namespaceFor(principal: Principal, namespace: string): string {
	assertTagAllowed(principal, namespace)
	return namespace
}

/** Fields where v5 gives `null` a meaning ("clear it"); elsewhere a null optional field means "absent". */
const NULL_MEANS_CLEAR = new Set(['supportingContext', 'organizationalContext'])

/**
 * The Python client sends a keyword argument passed as None as JSON null: dropped before validation, except where
 * null clears a value.
 */
export function nullsAsAbsent() {
	return new Elysia().onTransform({ as: 'scoped' }, ({ body }) => {
		if (!body || typeof body !== 'object' || Array.isArray(body)) return
		const fields = body as Record<string, unknown>
		for (const key of Object.keys(fields)) if (fields[key] === null && !NULL_MEANS_CLEAR.has(key)) delete fields[key]
	})
}

/** `include` of a GET: repeated, comma-separated or single, each value one of `allowed`. */
export function includeList<T extends string>(
	raw: string | string[] | undefined,
	allowed: readonly T[],
	field = 'include',
): Set<T> {
	const values = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw])
		.flatMap((value) => value.split(','))
		.map((value) => value.trim())
		.filter(Boolean)
	for (const value of values) {
		if (!allowed.includes(value as T)) {
			throw new IncludeError(`${field}: "${value}" is not one of ${allowed.join(', ')}`, field)
		}
	}
	return new Set(values as T[])
}

import { V5ValidationError } from './errors.ts'

class IncludeError extends V5ValidationError {
	constructor(message: string, field: string) {
		super(message, ['query', field])
	}
}
