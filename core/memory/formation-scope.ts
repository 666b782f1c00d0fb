import type { Metadata } from '../domain/types.ts'
import type { FormationContext, FormationProbe } from '../plugins/memory-storage.ts'

/**
 * Nearest stored memories read per statement of a scoped formation, of which those in scope are kept (up to the
 * probe's own count): the probe reads the container's nearest memories, not its nearest in scope, so it reads wider.
 * Same-text and same-fact matches are read in full and need no margin.
 */
export const SCOPED_NEIGHBOURS = 32

/**
 * Whether a memory's metadata falls in a formation scope: every key of the scope must match; a scalar matches an
 * equal value, an array any of its values (scalars AND, arrays OR). A memory whose value is an array matches when
 * one of its values does.
 */
export function inScope(scope: Metadata, metadata: Record<string, unknown> | null): boolean {
	for (const [key, wanted] of Object.entries(scope)) {
		const held = metadata?.[key]
		if (held === undefined || held === null) return false
		const heldValues: unknown[] = Array.isArray(held) ? held : [held]
		const wantedValues: unknown[] = Array.isArray(wanted) ? wanted : [wanted]
		if (!wantedValues.some((value) => heldValues.includes(value))) return false
	}
	return true
}

/** A document's formation scope; an empty one limits nothing. */
export function formationScopeOf(document: { formationScope: Metadata | null }): Metadata | null {
	const scope = document.formationScope
	return scope && Object.keys(scope).length > 0 ? scope : null
}

/** A key equal for equal scopes (keys and array values in any order); '' for no scope. */
export function scopeKey(scope: Metadata | null): string {
	if (!scope) return ''
	const entries = Object.entries(scope)
		.map(([key, value]) => [key, Array.isArray(value) ? [...value].sort() : value] as const)
		.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
	return JSON.stringify(entries)
}

/** The probe of a scoped formation: wider neighbour reads (see SCOPED_NEIGHBOURS). */
export function scopedProbe(probe: FormationProbe, scope: Metadata | null): FormationProbe {
	if (!scope) return probe
	return { ...probe, neighbours: Math.max(probe.neighbours, SCOPED_NEIGHBOURS) }
}

/** The context limited to memories in scope; each statement keeps its `neighbours` nearest of them. */
export function scopedContext(context: FormationContext, scope: Metadata | null, neighbours: number): FormationContext {
	if (!scope) return context
	const memories = context.memories.filter((memory) => inScope(scope, memory.metadata))
	const kept = new Set(memories.map((memory) => memory.id))
	return {
		memories,
		nearest: context.nearest.map((hits) => hits.filter((hit) => kept.has(hit.memoryId)).slice(0, neighbours)),
	}
}

/** The items split by their documents' formation scope, each part in the items' order. */
export function byScope<T>(
	items: T[],
	scopeOf: (item: T) => Metadata | null,
): { scope: Metadata | null; items: T[] }[] {
	const parts = new Map<string, { scope: Metadata | null; items: T[] }>()
	for (const item of items) {
		const scope = scopeOf(item)
		const key = scopeKey(scope)
		const part = parts.get(key) ?? { scope, items: [] }
		part.items.push(item)
		parts.set(key, part)
	}
	return [...parts.values()]
}
