import { isRefused, type NotionSession } from './client.ts'
import type { NotionPage } from './page.ts'

/** Page objects carry at most this many references per property; the rest is read through the property endpoint. */
const REFERENCE_LIMIT = 25

type Property = { id?: string; type?: string; [field: string]: unknown }

/** Whether the page object may have cut the property: a relation says so, people and rollups cannot. */
function maybeCut(property: Property): boolean {
	if (!property.id) return false
	if (property.type === 'relation') return property.has_more === true
	if (property.type === 'people') return Array.isArray(property.people) && property.people.length >= REFERENCE_LIMIT
	return property.type === 'rollup'
}

/**
 * The page with its relation, people and rollup values complete: each one the page object may have cut is read
 * from `pages.properties.retrieve`, every page of it. A property Notion refuses keeps the value the page carried.
 */
export async function withCompleteProperties(session: NotionSession, page: NotionPage): Promise<NotionPage> {
	const properties = page.properties ?? {}
	const cut = Object.entries(properties).filter(([, property]) => property && maybeCut(property as Property))
	if (cut.length === 0) return page
	const complete: Record<string, Property> = { ...properties }
	for (const [name, raw] of cut) {
		const property = raw as Property
		try {
			complete[name] = await readProperty(session, page.id, property)
		} catch (error) {
			if (!isRefused(error)) throw error
		}
	}
	return { ...page, properties: complete }
}

async function readProperty(session: NotionSession, pageId: string, property: Property): Promise<Property> {
	const type = property.type!
	const items: unknown[] = []
	let rollup: unknown = null
	let cursor: string | undefined
	do {
		const response = (await session.call((client, auth) =>
			client.pages.properties.retrieve({ auth, page_id: pageId, property_id: property.id!, start_cursor: cursor }),
		)) as {
			object?: string
			results?: { [field: string]: unknown }[]
			has_more?: boolean
			next_cursor?: string | null
			property_item?: { rollup?: unknown }
			[field: string]: unknown
		}
		if (response.object !== 'list') return { ...property, [type]: response[type] }
		for (const item of response.results ?? []) items.push(type === 'rollup' ? item : item[item.type as string])
		rollup = response.property_item?.rollup ?? rollup
		cursor = response.has_more && response.next_cursor ? response.next_cursor : undefined
	} while (cursor)
	if (type === 'rollup') {
		const value = (rollup ?? {}) as { type?: string; [field: string]: unknown }
		return { ...property, rollup: value.type === 'array' ? { ...value, array: items } : value }
	}
	return { ...property, [type]: items, ...(type === 'relation' ? { has_more: false } : {}) }
}
