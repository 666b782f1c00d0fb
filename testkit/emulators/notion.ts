import { signWebhookPayload } from '@notionhq/client'
import { faultLayer } from './faults.ts'
import { type IssuedCode, redeemCode } from './oauth-code.ts'

/**
 * A local Notion: the public-integration OAuth flow (Basic-auth token exchange, rotating refresh tokens, revocation),
 * the REST calls the Notion connector makes (users/me, search, pages, block children, data sources and their
 * queries) with Notion's pagination and `last_edited_time` order, 429 with Retry-After on demand, and signed webhook
 * deliveries. Real HTTP on 127.0.0.1, so @notionhq/client and the OAuth client run unchanged against it. Edit stamps
 * come from a clock that moves a minute per change and is truncated to the minute, as Notion's are.
 *
 * Where Notion's documentation says less than a happy path would assume, the emulator takes the documented side:
 * - search is not exhaustive and indexing is not immediate (search-optimizations-and-limitations): a page can be
 *   shared and readable yet missing from search (`hideFromSearch`, `addPage({ indexed: false })`);
 * - a data source query returns at most 10,000 rows (`queryRowLimit`), then `has_more: false` with
 *   `request_status: { type: 'incomplete' }` (notion-sdk-js `iterateAllDataSourceRows`, which windows by created_time);
 * - page properties carry at most 25 references (retrieve-a-page): relation (`has_more: true`) and people values are
 *   cut, the rest comes from `GET /v1/pages/{id}/properties/{property_id}` (retrieve-a-page-property), paginated;
 * - nothing says moving a page to the trash changes its `last_edited_time`, so `trash` leaves it;
 * - 429 `rate_limited` carries `Retry-After` in seconds, which for the per-workspace limit "can be longer than a
 *   minute" (request-limits).
 */

export interface RichTextInput {
	text: string
	bold?: boolean
	italic?: boolean
	code?: boolean
	strikethrough?: boolean
	href?: string
}

/** A block to seed: `{ type, [type]: payload, children }` as Notion shapes it, without ids. */
export interface BlockInput {
	type: string
	children?: BlockInput[]
	[field: string]: unknown
}

interface StoredPage {
	id: string
	title: string
	titleProperty: string
	parent: Record<string, unknown>
	properties: Record<string, unknown>
	createdTime: string
	lastEdited: string
	inTrash: boolean
	shared: boolean
	/** In the search index (a shared page may not be, yet or at all). */
	indexed: boolean
	/** Replaces the page object wholesale (a malformed page). */
	raw?: Record<string, unknown>
}

interface DataSource {
	id: string
	databaseId: string
	title: string
	lastEdited: string
	shared: boolean
}

interface Grant {
	revoked: boolean
	expiresAt: number | null
}

export interface NotionEmulatorOptions {
	clientId?: string
	clientSecret?: string
	/** Seconds an access token works before Notion refuses it (401); null: forever. */
	tokenLifetimeSeconds?: number | null
	/** Whether grants carry a refresh token (rotated on every use). Default true. */
	refreshTokens?: boolean
	workspaceId?: string
	email?: string
	/** Stamp edits with the real time (to the minute) instead of a clock a minute per change in the past. */
	realClock?: boolean
	/** Rows one data source query returns at most before `request_status: incomplete`. Default 10,000. */
	queryRowLimit?: number
}

/** Notion's page objects carry at most this many references per property (retrieve-a-page). */
export const PROPERTY_REFERENCE_LIMIT = 25

export const richText = (...parts: (string | RichTextInput)[]) =>
	parts.map((part) => {
		const p = typeof part === 'string' ? { text: part } : part
		return {
			type: 'text',
			text: { content: p.text, link: p.href ? { url: p.href } : null },
			plain_text: p.text,
			href: p.href ?? null,
			annotations: {
				bold: p.bold ?? false,
				italic: p.italic ?? false,
				strikethrough: p.strikethrough ?? false,
				underline: false,
				code: p.code ?? false,
				color: 'default',
			},
		}
	})

/** Block builders, Notion's shapes. */
export const block = {
	text: (
		type: string,
		text: string | RichTextInput[],
		extra: Record<string, unknown> = {},
		children?: BlockInput[],
	) => ({
		type,
		[type]: { rich_text: typeof text === 'string' ? richText(text) : richText(...text), color: 'default', ...extra },
		...(children ? { children } : {}),
	}),
	paragraph: (text: string | RichTextInput[], children?: BlockInput[]) => block.text('paragraph', text, {}, children),
	heading: (level: 1 | 2 | 3, text: string) => block.text(`heading_${level}`, text, { is_toggleable: false }),
	bullet: (text: string, children?: BlockInput[]) => block.text('bulleted_list_item', text, {}, children),
	numbered: (text: string, children?: BlockInput[]) => block.text('numbered_list_item', text, {}, children),
	todo: (text: string, checked: boolean) => block.text('to_do', text, { checked }),
	toggle: (text: string, children: BlockInput[]) => block.text('toggle', text, {}, children),
	quote: (text: string) => block.text('quote', text),
	callout: (text: string, emoji: string) => block.text('callout', text, { icon: { type: 'emoji', emoji } }),
	code: (code: string, language: string) => block.text('code', code, { language, caption: [] }),
	divider: () => ({ type: 'divider', divider: {} }),
	table: (rows: string[][]) => ({
		type: 'table',
		table: { table_width: rows[0]?.length ?? 0, has_column_header: true, has_row_header: false },
		children: rows.map((cells) => ({ type: 'table_row', table_row: { cells: cells.map((cell) => richText(cell)) } })),
	}),
	childPage: (title: string) => ({ type: 'child_page', child_page: { title } }),
	childDatabase: (title: string) => ({ type: 'child_database', child_database: { title } }),
}

const minute = (ms: number) => new Date(Math.floor(ms / 60_000) * 60_000).toISOString()

export function startNotionEmulator(options: NotionEmulatorOptions = {}) {
	const clientId = options.clientId ?? 'notion-client'
	const clientSecret = options.clientSecret ?? 'notion-secret'
	const workspaceId = options.workspaceId ?? 'ws-0001'
	const email = options.email ?? 'ada@example.com'
	const issueRefresh = options.refreshTokens ?? true
	const pages = new Map<string, StoredPage>()
	const dataSources = new Map<string, DataSource>()
	const children = new Map<string, Record<string, unknown>[]>()
	/** Which page a block belongs to (blocks of a page no longer shared are not found). */
	const blockPage = new Map<string, string>()
	const codes = new Map<string, IssuedCode>()
	const grants = new Map<string, Grant>()
	const refreshes = new Map<string, string>()
	const faults: {
		path: RegExp
		status: number
		retryAfter: number | null
		times: number
		when?: (body: Record<string, any>) => boolean
	}[] = []
	const queryRowLimit = options.queryRowLimit ?? 10_000
	/** Every request: when it arrived, what it asked and the status it got. */
	const log: { at: number; method: string; path: string; status: number }[] = []
	let clock = Date.parse('2026-11-02T09:00:00.000Z')
	let ids = 0
	const newId = () => {
		const n = (++ids).toString(16).padStart(12, '0')
		return `0000${n.slice(0, 4)}-0000-4000-8000-${n}`
	}
	const stamp = () => {
		if (options.realClock) return minute(Date.now())
		clock += 60_000
		return minute(clock)
	}

	const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
		Response.json(body, { status, headers })
	const apiError = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
		json({ object: 'error', status, code, message }, status, headers)

	function issue(): Record<string, unknown> {
		const access = `ntn_${crypto.randomUUID().replaceAll('-', '')}`
		const lifetime = options.tokenLifetimeSeconds ?? null
		grants.set(access, { revoked: false, expiresAt: lifetime === null ? null : Date.now() + lifetime * 1000 })
		const refresh = issueRefresh ? `nrt_${crypto.randomUUID().replaceAll('-', '')}` : null
		if (refresh) refreshes.set(refresh, access)
		return {
			access_token: access,
			token_type: 'bearer',
			refresh_token: refresh,
			bot_id: 'bot-0001',
			workspace_icon: null,
			workspace_name: 'Emulated workspace',
			workspace_id: workspaceId,
			owner: { type: 'user', user: { object: 'user', id: 'user-1', type: 'person', person: { email } } },
			duplicated_template_id: null,
		}
	}

	/** Notion takes the application only as HTTP Basic credentials. */
	function basicClient(request: Request): boolean {
		const header = request.headers.get('authorization') ?? ''
		if (!header.startsWith('Basic ')) return false
		const [id, secret] = Buffer.from(header.slice(6), 'base64').toString().split(':')
		return id === clientId && secret === clientSecret
	}

	async function bodyOf(request: Request): Promise<Record<string, string>> {
		const text = await request.text()
		if ((request.headers.get('content-type') ?? '').includes('json')) return JSON.parse(text || '{}')
		return Object.fromEntries(new URLSearchParams(text))
	}

	async function token(request: Request): Promise<Response> {
		if (!basicClient(request)) return json({ error: 'invalid_client', error_description: 'Basic auth required' }, 401)
		const body = await bodyOf(request)
		if (body.grant_type === 'refresh_token') {
			// A revoked grant (the fault layer's `revoke`) refuses its refresh token too.
			const access = sharedFaults.faults.revoke ? undefined : refreshes.get(body.refresh_token ?? '')
			if (!access) return json({ error: 'invalid_grant', error_description: 'Token has been expired or revoked.' }, 400)
			refreshes.delete(body.refresh_token ?? '')
			grants.get(access)!.revoked = true
			log.push({ at: Date.now(), method: 'POST', path: '/v1/oauth/token refresh', status: 200 })
			return json(issue())
		}
		if (body.grant_type !== 'authorization_code')
			return json({ error: 'unsupported_grant_type', error_description: 'grant_type' }, 400)
		const code = redeemCode(codes, new URLSearchParams(body), {
			unknown: () => json({ error: 'invalid_grant', error_description: 'unknown or used code' }, 400),
			redirectUri: () => json({ error: 'invalid_grant', error_description: 'redirect_uri' }, 400),
			verifier: () => json({ error: 'invalid_grant', error_description: 'code_verifier' }, 400),
		})
		if (code instanceof Response) return code
		log.push({ at: Date.now(), method: 'POST', path: '/v1/oauth/token exchange', status: 200 })
		return json(issue())
	}

	function pageObject(page: StoredPage): Record<string, unknown> {
		if (page.raw) return page.raw
		return {
			object: 'page',
			id: page.id,
			created_time: page.createdTime,
			last_edited_time: page.lastEdited,
			in_trash: page.inTrash,
			archived: page.inTrash,
			url: `https://www.notion.so/${page.title.replaceAll(/\W+/g, '-')}-${page.id.replaceAll('-', '')}`,
			parent: page.parent,
			properties: {
				...Object.fromEntries(
					Object.entries(page.properties).map(([name, value]) => [name, referencesCut(name, value)]),
				),
				[page.titleProperty]: { id: 'title', type: 'title', title: richText(page.title) },
			},
		}
	}

	const propertyId = (name: string, value: unknown) =>
		String((value as { id?: string }).id ?? encodeURIComponent(name).slice(0, 12))

	/** A property as a page object carries it: at most 25 references, a relation saying it has more. */
	function referencesCut(name: string, raw: unknown): unknown {
		const value: Record<string, unknown> = { ...(raw as Record<string, unknown>), id: propertyId(name, raw) }
		const type = value.type as string
		const list = value[type]
		if ((type === 'relation' || type === 'people') && Array.isArray(list) && list.length > PROPERTY_REFERENCE_LIMIT) {
			return {
				...value,
				[type]: list.slice(0, PROPERTY_REFERENCE_LIMIT),
				...(type === 'relation' ? { has_more: true } : {}),
			}
		}
		return type === 'relation' ? { has_more: false, ...value } : value
	}

	/** `GET /v1/pages/{id}/properties/{property_id}`: a paginated list for references, else the one item. */
	function propertyItem(page: StoredPage, id: string, query: Record<string, string>): Response {
		const found = Object.entries(page.properties).find(([name, value]) => propertyId(name, value) === id)
		if (!found) return apiError(404, 'object_not_found', 'Could not find property')
		const [, raw] = found
		const value = raw as Record<string, unknown>
		const type = value.type as string
		const inner = value[type]
		if (type === 'relation' || type === 'people' || type === 'rich_text' || type === 'title') {
			const items = (Array.isArray(inner) ? inner : []).map((entry) => ({
				object: 'property_item',
				id,
				type,
				[type]: entry,
			}))
			const listed = paginate(items, query)
			return json({
				...listed,
				type: 'property_item',
				property_item: { id, type, [type]: {}, next_url: null },
			})
		}
		return json({ object: 'property_item', id, type, [type]: inner })
	}

	const dataSourceObject = (source: DataSource) => ({
		object: 'data_source',
		id: source.id,
		title: richText(source.title),
		last_edited_time: source.lastEdited,
		parent: { type: 'database_id', database_id: source.databaseId },
		properties: {},
	})

	function paginate(items: unknown[], body: { start_cursor?: string; page_size?: number }) {
		const start = Number(body.start_cursor ?? 0) || 0
		const size = Math.min(100, Math.max(1, Number(body.page_size ?? 100)))
		const slice = items.slice(start, start + size)
		const more = start + size < items.length
		return { object: 'list', results: slice, next_cursor: more ? String(start + size) : null, has_more: more }
	}

	const byEditedDesc = (a: { last_edited_time?: unknown; id?: unknown }, b: typeof a) =>
		String(b.last_edited_time).localeCompare(String(a.last_edited_time)) || String(a.id).localeCompare(String(b.id))

	const byCreatedAsc = (a: { created_time?: unknown; id?: unknown }, b: typeof a) =>
		String(a.created_time).localeCompare(String(b.created_time)) || String(a.id).localeCompare(String(b.id))

	/** The `created_time: { on_or_after }` bound of a query filter, alone or in an `and` (the SDK's windows). */
	function createdOnOrAfter(filter: any): string | null {
		if (!filter) return null
		if (filter.timestamp === 'created_time') return filter.created_time?.on_or_after ?? null
		for (const part of filter.and ?? []) {
			const bound = createdOnOrAfter(part)
			if (bound) return bound
		}
		return null
	}

	function search(body: { filter?: { property?: string; value?: string; in_trash?: boolean } }) {
		const trash = body.filter?.in_trash === true
		const only = body.filter?.property === 'object' ? body.filter.value : null
		const found: Record<string, unknown>[] = []
		if (only !== 'data_source') {
			for (const page of pages.values()) {
				if (page.shared && page.indexed && page.inTrash === trash) found.push(pageObject(page))
			}
		}
		if (only !== 'page' && !trash) {
			for (const source of dataSources.values()) if (source.shared) found.push(dataSourceObject(source))
		}
		return found.sort(byEditedDesc)
	}

	async function api(request: Request, url: URL): Promise<Response> {
		const grant = grants.get((request.headers.get('authorization') ?? '').replace(/^Bearer /, ''))
		if (!grant || grant.revoked || (grant.expiresAt !== null && grant.expiresAt < Date.now())) {
			return apiError(401, 'unauthorized', 'API token is invalid.')
		}
		if (!request.headers.get('notion-version')) return apiError(400, 'missing_version', 'Notion-Version is required')
		const path = url.pathname
		const body = request.method === 'POST' ? ((await request.json().catch(() => ({}))) as Record<string, any>) : {}
		for (const fault of faults) {
			if (fault.times > 0 && fault.path.test(path) && (!fault.when || fault.when(body))) {
				fault.times--
				const headers: Record<string, string> =
					fault.retryAfter === null ? {} : { 'retry-after': String(fault.retryAfter) }
				const code =
					fault.status === 429
						? 'rate_limited'
						: fault.status === 400
							? 'validation_error'
							: fault.status === 404
								? 'object_not_found'
								: 'internal_server_error'
				return apiError(fault.status, code, 'fault', headers)
			}
		}
		const query = Object.fromEntries(url.searchParams)
		if (path === '/v1/users/me') {
			return json({
				object: 'user',
				id: 'bot-0001',
				type: 'bot',
				name: 'Memory',
				bot: {
					owner: { type: 'user', user: { object: 'user', id: 'user-1', type: 'person', person: { email } } },
					workspace_id: workspaceId,
					workspace_name: 'Emulated workspace',
				},
			})
		}
		if (path === '/v1/search' && request.method === 'POST') return json(paginate(search(body), body))
		let match = /^\/v1\/pages\/([^/]+)\/properties\/([^/]+)$/.exec(path)
		if (match) {
			const page = pages.get(match[1]!)
			if (!page?.shared) return apiError(404, 'object_not_found', 'Could not find page')
			return propertyItem(page, decodeURIComponent(match[2]!), query)
		}
		match = /^\/v1\/pages\/([^/]+)$/.exec(path)
		if (match) {
			const page = pages.get(match[1]!)
			return page?.shared ? json(pageObject(page)) : apiError(404, 'object_not_found', 'Could not find page')
		}
		match = /^\/v1\/blocks\/([^/]+)\/children$/.exec(path)
		if (match) {
			const owner = blockPage.get(match[1]!) ?? match[1]!
			const list = children.get(match[1]!)
			if (!list || !pages.get(owner)?.shared) return apiError(404, 'object_not_found', 'Could not find block')
			return json(paginate(list, query))
		}
		match = /^\/v1\/data_sources\/([^/]+)(\/query)?$/.exec(path)
		if (match) {
			const source = dataSources.get(match[1]!)
			if (!source?.shared) return apiError(404, 'object_not_found', 'Could not find data source')
			if (!match[2]) return json(dataSourceObject(source))
			const from = createdOnOrAfter(body.filter)
			const byCreated = body.sorts?.[0]?.timestamp === 'created_time'
			const rows = [...pages.values()]
				.filter((page) => page.parent.data_source_id === source.id && page.shared && !page.inTrash)
				.filter((page) => from === null || page.createdTime >= from)
				.map(pageObject)
				.sort(byCreated ? byCreatedAsc : byEditedDesc)
			// One query (filter and sorts) returns at most queryRowLimit rows, however it is paged.
			const limited = rows.slice(0, queryRowLimit)
			const listed = paginate(limited, body)
			return json({
				...listed,
				...(rows.length > queryRowLimit && !listed.has_more
					? { request_status: { type: 'incomplete', incomplete_reason: 'query_result_limit_reached' } }
					: {}),
			})
		}
		return apiError(404, 'invalid_request_url', `no route ${path}`)
	}

	function storeBlocks(parentId: string, pageId: string, blocks: BlockInput[]) {
		const list = blocks.map((input) => {
			const id = newId()
			const { children: nested, ...rest } = input
			blockPage.set(id, pageId)
			if (nested?.length) storeBlocks(id, pageId, nested)
			return {
				object: 'block',
				id,
				created_time: minute(clock),
				last_edited_time: minute(clock),
				has_children: (nested?.length ?? 0) > 0,
				in_trash: false,
				...rest,
			}
		})
		children.set(parentId, list)
	}

	const sharedFaults = faultLayer('notion')
	const server = Bun.serve({
		hostname: '127.0.0.1',
		port: 0,
		async fetch(request) {
			const fault = await sharedFaults.before(request)
			if (fault) return fault
			const arrived = Date.now()
			const url = new URL(request.url)
			let response: Response
			if (url.pathname === '/v1/oauth/authorize') {
				if (url.searchParams.get('client_id') !== clientId) return json({ error: 'unknown client' }, 400)
				const redirect = new URL(url.searchParams.get('redirect_uri') ?? '')
				const code = crypto.randomUUID()
				codes.set(code, { redirectUri: redirect.toString(), challenge: null, method: null })
				redirect.searchParams.set('code', code)
				redirect.searchParams.set('state', url.searchParams.get('state') ?? '')
				response = new Response(null, { status: 302, headers: { location: redirect.toString() } })
			} else if (url.pathname === '/v1/oauth/token' && request.method === 'POST') {
				response = await token(request)
			} else if (url.pathname === '/v1/oauth/revoke' && request.method === 'POST') {
				if (!basicClient(request)) return json({ error: 'invalid_client' }, 401)
				const body = await bodyOf(request)
				const grant = grants.get(body.token ?? '')
				if (grant) grant.revoked = true
				response = json({})
			} else response = await api(request, url)
			log.push({ at: arrived, method: request.method, path: url.pathname, status: response.status })
			return response
		},
	})
	const url = `http://127.0.0.1:${server.port}`

	const emulator = {
		faults: sharedFaults,
		url,
		clientId,
		clientSecret,
		workspaceId,
		log,
		/** A page shared with the integration; `parent` another page's id, else the workspace. */
		addPage(input: {
			title: string
			blocks?: BlockInput[]
			parent?: string
			id?: string
			/** False: not shared with the integration yet (`share` later, with the stamp it has now). */
			shared?: boolean
			/** False: shared, but not (yet) in the search index. */
			indexed?: boolean
		}): string {
			const id = input.id ?? newId()
			const at = stamp()
			pages.set(id, {
				id,
				title: input.title,
				titleProperty: 'title',
				parent: input.parent ? { type: 'page_id', page_id: input.parent } : { type: 'workspace', workspace: true },
				properties: {},
				createdTime: at,
				lastEdited: at,
				inTrash: false,
				shared: input.shared ?? true,
				indexed: input.indexed ?? true,
			})
			storeBlocks(id, id, input.blocks ?? [])
			return id
		},
		/** A database (one data source) shared with the integration. */
		addDatabase(title: string): string {
			const id = newId()
			dataSources.set(id, { id, databaseId: newId(), title, lastEdited: stamp(), shared: true })
			return id
		},
		/** A row of a data source: `properties` in Notion's shape, the title under `titleProperty`. */
		addRow(
			dataSourceId: string,
			input: { title: string; titleProperty?: string; properties: Record<string, unknown>; blocks?: BlockInput[] },
		): string {
			const id = newId()
			const at = stamp()
			const source = dataSources.get(dataSourceId)!
			pages.set(id, {
				id,
				title: input.title,
				titleProperty: input.titleProperty ?? 'Name',
				parent: { type: 'data_source_id', data_source_id: dataSourceId, database_id: source.databaseId },
				properties: input.properties,
				createdTime: at,
				lastEdited: at,
				inTrash: false,
				shared: true,
				indexed: true,
			})
			storeBlocks(id, id, input.blocks ?? [])
			return id
		},
		/** Replaces a page's title and/or content; its stamp moves on. */
		editPage(id: string, change: { title?: string; blocks?: BlockInput[]; properties?: Record<string, unknown> }) {
			const page = pages.get(id)!
			if (change.title !== undefined) page.title = change.title
			if (change.properties) page.properties = { ...page.properties, ...change.properties }
			if (change.blocks) storeBlocks(id, id, change.blocks)
			page.lastEdited = stamp()
		},
		/** Edits a page without moving its stamp (a second edit within Notion's minute). */
		editPageSameMinute(id: string, blocks: BlockInput[]) {
			storeBlocks(id, id, blocks)
		},
		/** Moves a page to the trash; its `last_edited_time` stays (nothing documents that trashing moves it). */
		trash(id: string) {
			pages.get(id)!.inTrash = true
		},
		/** The user stopped sharing the page with the integration. */
		unshare(id: string) {
			pages.get(id)!.shared = false
		},
		/** The user shared the page with the integration: nothing about the page changes, its stamp included. */
		share(id: string) {
			pages.get(id)!.shared = true
		},
		/** Search leaves the page out (it is not exhaustive); the page itself is still there and readable. */
		hideFromSearch(id: string, hidden = true) {
			pages.get(id)!.indexed = !hidden
		},
		/** Changes what the page shows without touching its own stamp (another page's edit, a synced original). */
		editBlocksOf(blockId: string, blocks: BlockInput[]) {
			const owner = blockPage.get(blockId) ?? blockId
			storeBlocks(blockId, owner, blocks)
		},
		/** A page object as given, whatever its shape (a malformed page). */
		addRawPage(raw: Record<string, unknown>) {
			const id = typeof raw.id === 'string' ? raw.id : newId()
			const at = stamp()
			pages.set(id, {
				id,
				title: '',
				titleProperty: 'title',
				parent: {},
				properties: {},
				createdTime: at,
				lastEdited: at,
				inTrash: false,
				shared: true,
				indexed: true,
				raw: { object: 'page', last_edited_time: at, ...raw },
			})
			children.set(id, [])
		},
		/**
		 * The next `times` API calls whose path (and, with `when`, body) matches answer `status` (429: `rate_limited`
		 * with Retry-After seconds).
		 */
		fail(
			path: RegExp,
			status: number,
			retryAfter: number | null,
			times = 1,
			when?: (body: Record<string, any>) => boolean,
		) {
			faults.push({ path, status, retryAfter, times, when })
		},
		/** The ids of a page's blocks, in order (to edit a synced original). */
		blockIds: (parentId: string) => (children.get(parentId) ?? []).map((entry) => String(entry.id)),
		/** A grant as the token exchange would give it, for tests that drive a sync directly. */
		issueTokens: () => issue() as { access_token: string; refresh_token: string | null },
		/** The user removed the integration: every access and refresh token stops working. */
		revokeAll() {
			for (const grant of grants.values()) grant.revoked = true
			refreshes.clear()
		},
		liveGrants: () => [...grants.values()].filter((grant) => !grant.revoked).length,
		calls: (pattern: RegExp) => log.filter((entry) => pattern.test(entry.path)),
		/** The verification request Notion sends once when a subscription is made. */
		handshake(verificationToken: string) {
			return {
				body: JSON.stringify({ verification_token: verificationToken }),
				headers: { 'content-type': 'application/json' },
			}
		},
		/** An event delivery signed with `verificationToken`. */
		async delivery(
			verificationToken: string,
			event: { type: string; entityId: string; workspaceId?: string; id?: string },
		) {
			const body = JSON.stringify({
				id: event.id ?? crypto.randomUUID(),
				timestamp: new Date().toISOString(),
				workspace_id: event.workspaceId ?? workspaceId,
				workspace_name: 'Emulated workspace',
				subscription_id: 'sub-1',
				integration_id: 'int-1',
				type: event.type,
				authors: [{ id: 'user-1', type: 'person' }],
				attempt_number: 1,
				entity: { id: event.entityId, type: event.type.split('.')[0] },
				data: {},
			})
			const signature = await signWebhookPayload({ body, verificationToken })
			return { body, headers: { 'content-type': 'application/json', 'x-notion-signature': signature } }
		},
		stop: () => server.stop(true),
	}
	return emulator
}

export type NotionEmulator = ReturnType<typeof startNotionEmulator>
