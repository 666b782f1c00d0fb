import { plainText } from './rich-text.ts'

type Scalar = string | number | boolean
type Value = Record<string, unknown> & { type?: string }

/** Longest metadata text kept from one property. */
const MAX_TEXT = 1000
/** Metadata keys the service sets itself: a property of the same name is kept under `property:<name>`. */
const RESERVED = new Set([
	'provider',
	'externalId',
	'url',
	'sourceType',
	'notionId',
	'lastEditedTime',
	'createdTime',
	'database',
	'databaseId',
	'dataSourceId',
	'truncated',
])

/**
 * A database row's properties as flat metadata (strings, numbers, booleans), so search filters can use them: text
 * as its plain text, select and status as the option name, multi-select and people as comma-separated names, dates
 * as their ISO start (an end adds `<name> end`), formulas and rollups as their result. Empty values are left out.
 */
export function propertiesAsMetadata(properties: unknown): Record<string, Scalar> {
	const metadata: Record<string, Scalar> = {}
	if (!properties || typeof properties !== 'object') return metadata
	for (const [name, raw] of Object.entries(properties as Record<string, unknown>)) {
		if (!raw || typeof raw !== 'object' || name.trim() === '') continue
		const key = RESERVED.has(name) ? `property:${name}` : name.slice(0, 200)
		const value = raw as Value
		try {
			const flat = flatten(value)
			if (flat !== null) metadata[key] = typeof flat === 'string' ? flat.slice(0, MAX_TEXT) : flat
			const end = value.type === 'date' ? ((value.date as { end?: string | null } | null)?.end ?? null) : null
			if (end) metadata[`${key} end`] = end
		} catch {
			// A malformed property is left out; the row is still imported.
		}
	}
	return metadata
}

function flatten(value: Value): Scalar | null {
	const type = value.type ?? ''
	const inner = value[type] as unknown
	switch (type) {
		case 'title':
		case 'rich_text':
			return nonEmpty(plainText(inner))
		case 'number':
			return typeof inner === 'number' && Number.isFinite(inner) ? inner : null
		case 'checkbox':
			return typeof inner === 'boolean' ? inner : null
		case 'select':
		case 'status':
			return nonEmpty((inner as { name?: string } | null)?.name)
		case 'multi_select':
			return names(inner)
		case 'people':
			return names(inner)
		case 'date':
			return nonEmpty((inner as { start?: string } | null)?.start)
		case 'url':
		case 'email':
		case 'phone_number':
		case 'created_time':
		case 'last_edited_time':
			return nonEmpty(inner)
		case 'created_by':
		case 'last_edited_by':
			return nonEmpty((inner as { name?: string; id?: string } | null)?.name ?? (inner as { id?: string })?.id)
		case 'files':
			return names(inner)
		case 'relation':
			return Array.isArray(inner) ? nonEmpty(inner.map((r: { id?: string }) => r?.id ?? '').join(', ')) : null
		case 'unique_id': {
			const id = inner as { prefix?: string | null; number?: number | null } | null
			return id?.number == null ? null : id.prefix ? `${id.prefix}-${id.number}` : id.number
		}
		case 'formula':
			return result(inner as Value | null)
		case 'rollup':
			return rollup(inner as Value | null)
		case 'verification':
			return nonEmpty((inner as { state?: string } | null)?.state)
		default:
			return null
	}
}

function result(value: Value | null): Scalar | null {
	if (!value?.type) return null
	const inner = value[value.type]
	if (value.type === 'date') return nonEmpty((inner as { start?: string } | null)?.start)
	if (typeof inner === 'number') return Number.isFinite(inner) ? inner : null
	if (typeof inner === 'boolean') return inner
	return nonEmpty(inner)
}

function rollup(value: Value | null): Scalar | null {
	if (value?.type !== 'array') return result(value)
	const items = Array.isArray(value.array) ? (value.array as Value[]) : []
	const flat = items.map((item) => flatten(item)).filter((item): item is Scalar => item !== null)
	return flat.length === 0 ? null : flat.join(', ')
}

function names(list: unknown): string | null {
	if (!Array.isArray(list)) return null
	return nonEmpty(
		list
			.map((entry: { name?: string | null; id?: string }) => entry?.name ?? '')
			.filter(Boolean)
			.join(', '),
	)
}

const nonEmpty = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null)
