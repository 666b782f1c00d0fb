import type { LinkableMemory } from '../core/index.ts'
import { contentKey } from '../core/memory/normalize.ts'

/** A latest first version of a memory as a formation context gives it, with `overrides`. */
export function linkableMemory(id: string, memory: string, overrides: Partial<LinkableMemory> = {}): LinkableMemory {
	return {
		id,
		memory,
		contentKey: contentKey(memory),
		subject: null,
		attribute: null,
		value: null,
		version: 1,
		rootId: id,
		isStatic: false,
		isLatest: true,
		isForgotten: false,
		metadata: null,
		forgetAfter: null,
		forgetReason: null,
		eventDates: [],
		...overrides,
	}
}
