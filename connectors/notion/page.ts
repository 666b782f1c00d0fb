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

/**
 * The versions under which a listed page counts as unchanged: its edit stamp; and, for a page showing what other
 * objects hold (see `dependsOnOthers`), its stamp within the current refresh period.
 */
export const listedVersions = (page: NotionPage, refreshEpoch: string) => [
	page.last_edited_time,
	`${page.last_edited_time}~refresh@${refreshEpoch}`,
]

/**
 * The version stored with an import: the edit stamp once its minute has passed; before that a later edit in the same
 * minute would keep the stamp, so the version is marked open and the page is read again next time. A page that shows
 * what other objects hold carries the refresh period too, so it is read again when the period turns.
 */
export function importedVersion(page: NotionPage, now = Date.now(), refresh?: { epoch: string } | null): string {
	const open = now - Date.parse(page.last_edited_time) < OPEN_MINUTE_MS
	if (open) return `${page.last_edited_time}~open`
	return refresh ? `${page.last_edited_time}~refresh@${refresh.epoch}` : page.last_edited_time
}

/** Block types whose text lives in another object: a synced copy, a child page's or database's title. */
const BORROWED = new Set(['child_page', 'child_database', 'synced_block'])
/** Property types computed from other pages. */
const COMPUTED = new Set(['formula', 'rollup', 'relation'])

/**
 * Whether the page shows text that changes without a new stamp on the page itself (each object keeps its own
 * `last_edited_time`): a synced copy, a child page's title, a computed property, a row's database title.
 */
export function dependsOnOthers(page: NotionPage, tree: BlockTree): boolean {
	if (isRow(page)) return true
	if (Object.values(page.properties ?? {}).some((property) => COMPUTED.has(String(property?.type)))) return true
	const visit = (blocks: BlockTree['blocks']): boolean =>
		blocks.some((block) => BORROWED.has(block.type) || (block.children ? visit(block.children) : false))
	return visit(tree.blocks)
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
	refreshEpoch: string | null = null,
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
		version: importedVersion(
			page,
			Date.now(),
			refreshEpoch && dependsOnOthers(page, tree) ? { epoch: refreshEpoch } : null,
		),
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
