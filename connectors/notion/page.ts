import type { ExternalDocument } from '../../core/index.ts'
import type { BlockTree } from './blocks.ts'
import { propertiesAsMetadata } from './properties.ts'
import { notionUrl, renderBlocks } from './render.ts'
import { plainText } from './rich-text.ts'

/** A page as search and data source queries list it (read loosely: a malformed one fails only itself). */
export interface NotionPage {
	object: 'page'
	id: string
	last_edited_time: string
	created_time?: string
	in_trash?: boolean
	archived?: boolean
	url?: string
	parent?: { type?: string; data_source_id?: string; database_id?: string; page_id?: string }
	properties?: Record<string, { type?: string; [field: string]: unknown }>
}

/** Notion stamps edits to the minute: a page read within this long of its stamp may still change under it. */
const OPEN_MINUTE_MS = 2 * 60_000

/** Why a listed page cannot be imported, or null when it can. */
export function malformation(page: Record<string, unknown>): string | null {
	if (typeof page.id !== 'string' || page.id === '') return 'it has no id'
	if (typeof page.last_edited_time !== 'string' || Number.isNaN(Date.parse(page.last_edited_time))) {
		return 'its last_edited_time is missing or not a time'
	}
	if (page.properties !== undefined && (typeof page.properties !== 'object' || page.properties === null)) {
		return 'its properties are not an object'
	}
	return null
}

export const isTrashed = (page: NotionPage) => page.in_trash === true || page.archived === true

export const isRow = (page: NotionPage) => page.parent?.type === 'data_source_id' || page.parent?.type === 'database_id'

/** The version an unchanged page keeps: its edit stamp. */
export const listedVersion = (page: NotionPage) => page.last_edited_time

/**
 * The version stored with an import: the edit stamp once its minute has passed; before that a later edit in the same
 * minute would keep the stamp, so the version is marked open and the page is read again next time.
 */
export function importedVersion(page: NotionPage, now = Date.now()): string {
	const open = now - Date.parse(page.last_edited_time) < OPEN_MINUTE_MS
	return open ? `${page.last_edited_time}~open` : page.last_edited_time
}

export function titleOf(page: NotionPage): string {
	for (const property of Object.values(page.properties ?? {})) {
		if (property?.type === 'title') return plainText(property.title).trim()
	}
	return ''
}

/** The page as a document: its title, a row's properties as lines and metadata, then its blocks as Markdown. */
export function documentOf(
	page: NotionPage,
	tree: BlockTree,
	database: { title: string | null } | null,
): ExternalDocument {
	const title = titleOf(page) || 'Untitled'
	const row = isRow(page)
	const properties = propertiesAsMetadata(
		Object.fromEntries(Object.entries(page.properties ?? {}).filter(([, property]) => property?.type !== 'title')),
	)
	const lines = row ? Object.entries(properties).map(([name, value]) => `${name}: ${value}`) : []
	const body = renderBlocks(tree.blocks)
	const content = [`# ${title}`, lines.join('\n'), body].filter((part) => part.trim() !== '').join('\n\n')
	return {
		externalId: page.id,
		version: importedVersion(page),
		title,
		content,
		url: typeof page.url === 'string' && page.url ? page.url : notionUrl(page.id),
		sourceType: row ? 'notion_database_row' : 'notion_doc',
		metadata: {
			...(row ? properties : {}),
			notionId: page.id,
			lastEditedTime: page.last_edited_time,
			...(page.created_time ? { createdTime: page.created_time } : {}),
			...(page.parent?.data_source_id ? { dataSourceId: page.parent.data_source_id } : {}),
			...(page.parent?.database_id ? { databaseId: page.parent.database_id } : {}),
			...(database?.title ? { database: database.title } : {}),
			...(tree.truncated ? { truncated: true } : {}),
		},
	}
}

/** The data source a row belongs to (older API versions name only the database). */
export const dataSourceOf = (page: NotionPage) => page.parent?.data_source_id ?? page.parent?.database_id ?? null
