import { createHash } from 'node:crypto'
import { apiError, type GoogleEmulator, json, type RateLimitKind, rateLimitError } from './google.ts'

/**
 * Drive v3 on the Google emulator: files (list with the `q` clauses the connector uses, get, `alt=media`, export with
 * Google's 10 MB limit), shared drives, the changes feed (start token, pages, removals) and watch channels with
 * their notifications. State is in memory; `version` increases on every change, as Drive's does.
 */

export const FOLDER = 'application/vnd.google-apps.folder'
export const DOC = 'application/vnd.google-apps.document'
export const SHEET = 'application/vnd.google-apps.spreadsheet'
export const SLIDES = 'application/vnd.google-apps.presentation'
export const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'
export const DRAWING = 'application/vnd.google-apps.drawing'
export const FORM = 'application/vnd.google-apps.form'
export const SHORTCUT = 'application/vnd.google-apps.shortcut'

/** Drive's scopes that can read file content; any other token gets 403 `insufficientPermissions`. */
const DRIVE_READ_SCOPES = ['https://www.googleapis.com/auth/drive', 'https://www.googleapis.com/auth/drive.readonly']

const EXPORT_LIMIT = 10 * 1024 * 1024

export interface DriveFile {
	id: string
	name: string
	mimeType: string
	parents: string[]
	trashed: boolean
	version: number
	modifiedTime: string
	driveId?: string
	/** Bytes of a stored file; for a Google file, its exports by media type. */
	content?: Uint8Array
	exports?: Record<string, Uint8Array | string>
	/** The size Drive reports when it differs from the content's (a file too large to hold here). */
	claimedSize?: number
	/** `capabilities.canDownload`: false when the owner disabled downloading for readers. */
	canDownload?: boolean
	/** A shortcut's target (`shortcutDetails`). */
	targetId?: string
}

/**
 * A change of the feed: a file's (`changeType: file`) or a shared drive's (`changeType: drive`; `removed` when it
 * was deleted or the user lost access to it, drive/v3 Change.changeType and Change.removed).
 */
interface Change {
	changeType: 'file' | 'drive'
	fileId?: string
	removed: boolean
	time: string
	driveId?: string
}

export interface Channel {
	id: string
	resourceId: string
	token: string
	address: string
	expiration: number
	stopped: boolean
	messages: number
}

const bytesOf = (value: Uint8Array | string) => (typeof value === 'string' ? new TextEncoder().encode(value) : value)

export interface DriveEmulatorOptions {
	/** Longest a watch channel lives (ms); Drive caps changes channels at a week. */
	channelLifetimeMs?: number
	/** Milliseconds each download or export waits (to interrupt a sync in its middle). */
	contentDelayMs?: number
}

export function addDriveRoutes(google: GoogleEmulator, options: DriveEmulatorOptions = {}) {
	const files = new Map<string, DriveFile>()
	const changes: Change[] = []
	const channels: Channel[] = []
	const drives = new Map<string, string>()
	let nextId = 1
	const newId = (prefix: string) => `${prefix}${String(nextId++).padStart(6, '0')}${'x'.repeat(20)}`
	const now = () => new Date().toISOString()
	const channelLifetime = options.channelLifetimeMs ?? 7 * 24 * 3600_000
	/** As Google: watch channels only for HTTPS addresses (the emulator accepts http unless this is set). */
	const state = {
		httpsOnly: false,
		/** The next this many downloads and exports are refused as `rateLimitKind`. */
		rateLimitedContentReads: 0,
		/** The next this many calls of any kind are refused as `rateLimitKind`. */
		rateLimitedCalls: 0,
		rateLimitKind: '429' as RateLimitKind,
		/**
		 * `allDrives`: `corpora=allDrives` listings come back with `incompleteSearch: true`, shared drives' files
		 * missing: "This may occur when searching multiple drives with the allDrives corpora" (drive/v3
		 * FileList.incompleteSearch). `any`: every listing says so (not documented for one corpus; a client must not
		 * trust a listing that says it is incomplete, whatever its corpus).
		 */
		incompleteSearch: false as false | 'allDrives' | 'any',
	}
	const rateLimited = () => (state.rateLimitedContentReads-- > 0 ? rateLimitError(state.rateLimitKind) : null)
	/** Drive's routes: the token must carry a Drive scope, and a rate limit set on every call applies. */
	const route = (method: string, pattern: RegExp, handler: Parameters<GoogleEmulator['route']>[2]) =>
		google.route(
			method,
			pattern,
			(context) => (state.rateLimitedCalls-- > 0 ? rateLimitError(state.rateLimitKind) : handler(context)),
			{ scopes: DRIVE_READ_SCOPES },
		)

	function record(file: DriveFile, removed = false) {
		changes.push({
			changeType: 'file',
			fileId: file.id,
			removed,
			time: now(),
			...(file.driveId ? { driveId: file.driveId } : {}),
		})
	}

	const sizeOf = (file: DriveFile) => file.claimedSize ?? file.content?.length
	function resource(file: DriveFile) {
		const size = sizeOf(file)
		return {
			kind: 'drive#file',
			id: file.id,
			name: file.name,
			mimeType: file.mimeType,
			parents: file.parents,
			trashed: file.trashed,
			version: String(file.version),
			modifiedTime: file.modifiedTime,
			webViewLink: `https://drive.example/file/d/${file.id}/view`,
			...(size !== undefined && !file.mimeType.startsWith('application/vnd.google-apps.')
				? { size: String(size) }
				: {}),
			...(file.content ? { md5Checksum: createHash('md5').update(file.content).digest('hex') } : {}),
			...(file.driveId ? { driveId: file.driveId } : {}),
			...(file.targetId ? { shortcutDetails: { targetId: file.targetId } } : {}),
			capabilities: { canDownload: file.canDownload ?? true },
		}
	}

	/**
	 * The top-level fields a `fields` mask asks for (`nextPageToken,incompleteSearch,files(id,name)`): Google returns
	 * only those (https://developers.google.com/drive/api/guides/fields-parameter).
	 */
	function masked(body: Record<string, unknown>, fields: string | null): Record<string, unknown> {
		if (!fields) return body
		const wanted = new Set<string>()
		let depth = 0
		let name = ''
		for (const char of `${fields},`) {
			if (char === '(') depth++
			else if (char === ')') depth--
			else if (char === ',' && depth === 0) {
				wanted.add(name.trim().split('/')[0]!)
				name = ''
			} else if (depth === 0) name += char
		}
		return Object.fromEntries(Object.entries(body).filter(([key]) => wanted.has(key)))
	}

	/**
	 * A file whose owner turned off downloading for readers: its `capabilities.canDownload` is false and downloads and
	 * exports are refused ("verify that users can download the file using the capabilities.canDownload field",
	 * https://developers.google.com/drive/api/guides/manage-downloads).
	 */
	const cannotDownload = () =>
		apiError(403, 'cannotDownloadFile', 'The user does not have permission to download this file.')

	/** A shared drive's items are visible only to calls that say they support shared drives. */
	const visible = (file: DriveFile, url: URL) => !file.driveId || url.searchParams.get('supportsAllDrives') === 'true'

	/** The `q` clauses the connector sends: trashed, parents, mime type (in)equality, joined by `and`. */
	function matches(file: DriveFile, q: string): boolean {
		for (const clause of q
			.split(/\s+and\s+/i)
			.map((part) => part.trim())
			.filter(Boolean)) {
			let m = /^trashed\s*=\s*(true|false)$/.exec(clause)
			if (m) {
				if (file.trashed !== (m[1] === 'true')) return false
				continue
			}
			m = /^'([^']+)'\s+in\s+parents$/.exec(clause)
			if (m) {
				if (!file.parents.includes(m[1]!)) return false
				continue
			}
			m = /^mimeType\s*(!=|=)\s*'([^']+)'$/.exec(clause)
			if (m) {
				if ((file.mimeType === m[2]) !== (m[1] === '=')) return false
				continue
			}
			throw new Error(`unsupported q clause: ${clause}`)
		}
		return true
	}

	function page<T>(items: T[], url: URL, defaultSize: number) {
		const size = Math.min(Number(url.searchParams.get('pageSize') ?? defaultSize), 1000)
		const start = Number(url.searchParams.get('pageToken') ?? 0)
		const slice = items.slice(start, start + size)
		const next = start + size < items.length ? String(start + size) : undefined
		return { slice, next }
	}

	route('GET', /^\/drive\/v3\/about$/, ({ email }) => json({ user: { displayName: 'Ada', emailAddress: email } }))

	// drives.list: pageSize 10 by default, at most 100 (drive/v3 drives.list).
	route('GET', /^\/drive\/v3\/drives$/, ({ url }) => {
		const all = [...drives].map(([id, name]) => ({ kind: 'drive#drive', id, name }))
		const size = Math.min(Number(url.searchParams.get('pageSize') ?? 10), 100)
		const start = Number(url.searchParams.get('pageToken') ?? 0)
		const next = start + size < all.length ? String(start + size) : undefined
		return json({ drives: all.slice(start, start + size), ...(next ? { nextPageToken: next } : {}) })
	})

	/**
	 * files.list by corpus: `user` (the default) is My Drive and what is shared with the user; `drive` one shared
	 * drive (`driveId`, with includeItemsFromAllDrives); `allDrives` both, which may come back incomplete.
	 */
	route('GET', /^\/drive\/v3\/files$/, ({ url }) => {
		const allDrives =
			url.searchParams.get('includeItemsFromAllDrives') === 'true' &&
			url.searchParams.get('supportsAllDrives') === 'true'
		const corpora = url.searchParams.get('corpora') ?? 'user'
		const driveId = url.searchParams.get('driveId')
		if (corpora === 'drive' && (!driveId || !allDrives)) {
			return apiError(400, 'invalid', 'corpora=drive needs driveId and includeItemsFromAllDrives=true')
		}
		if (corpora === 'allDrives' && !allDrives) {
			return apiError(400, 'invalid', 'corpora=allDrives needs includeItemsFromAllDrives=true')
		}
		const incomplete = state.incompleteSearch === 'any' || (corpora === 'allDrives' && state.incompleteSearch !== false)
		const inCorpus = (file: DriveFile) =>
			corpora === 'drive'
				? file.driveId === driveId
				: corpora === 'allDrives'
					? !file.driveId || (!incomplete && drives.has(file.driveId))
					: !file.driveId
		try {
			const q = url.searchParams.get('q') ?? ''
			// `any`: the search missed everything it was asked for (the worst an incomplete search can be).
			const listed = [...files.values()]
				.filter((file) => state.incompleteSearch !== 'any' && inCorpus(file))
				.filter((file) => matches(file, q))
				.sort((a, b) => a.id.localeCompare(b.id))
			const { slice, next } = page(listed, url, 100)
			const body = {
				kind: 'drive#fileList',
				incompleteSearch: incomplete,
				files: slice.map(resource),
				...(next ? { nextPageToken: next } : {}),
			}
			return json(masked(body, url.searchParams.get('fields')))
		} catch (error) {
			return apiError(400, 'invalid', `Invalid Value: ${(error as Error).message}`)
		}
	})

	route('GET', /^\/drive\/v3\/files\/([^/]+)$/, async ({ url, params }) => {
		const file = files.get(params[0]!)
		if (!file || !visible(file, url)) return apiError(404, 'notFound', `File not found: ${params[0]}.`)
		if (url.searchParams.get('alt') !== 'media') return json(resource(file))
		if (!file.content) return apiError(403, 'fileNotDownloadable', 'Only files with binary content can be downloaded.')
		if (file.canDownload === false) return cannotDownload()
		const limited = rateLimited()
		if (limited) return limited
		if (options.contentDelayMs) await Bun.sleep(options.contentDelayMs)
		return new Response(file.content, { headers: { 'content-type': file.mimeType } })
	})

	route('GET', /^\/drive\/v3\/files\/([^/]+)\/export$/, async ({ url, params }) => {
		// files.export takes no supportsAllDrives: shared drives' files export as any other.
		const file = files.get(params[0]!)
		if (!file) return apiError(404, 'notFound', `File not found: ${params[0]}.`)
		if (file.canDownload === false) return cannotDownload()
		const limited = rateLimited()
		if (limited) return limited
		const type = url.searchParams.get('mimeType') ?? ''
		const exported = file.exports?.[type]
		if (exported === undefined) return apiError(400, 'badRequest', 'The requested conversion is not supported.')
		const bytes = bytesOf(exported)
		if (bytes.length > EXPORT_LIMIT) {
			return apiError(403, 'exportSizeLimitExceeded', 'This file is too large to be exported.')
		}
		if (options.contentDelayMs) await Bun.sleep(options.contentDelayMs)
		return new Response(bytes, { headers: { 'content-type': type } })
	})

	route('GET', /^\/drive\/v3\/changes\/startPageToken$/, () =>
		json({ kind: 'drive#startPageToken', startPageToken: String(changes.length + 1) }),
	)

	route('GET', /^\/drive\/v3\/changes$/, ({ url }) => {
		const token = Number(url.searchParams.get('pageToken'))
		if (!Number.isInteger(token) || token < 1) return apiError(400, 'invalid', 'Invalid Value: pageToken')
		const allDrives =
			url.searchParams.get('includeItemsFromAllDrives') === 'true' &&
			url.searchParams.get('supportsAllDrives') === 'true'
		const includeRemoved = url.searchParams.get('includeRemoved') !== 'false'
		const size = Math.min(Number(url.searchParams.get('pageSize') ?? 100), 1000)
		const slice = changes.slice(token - 1, token - 1 + size)
		const end = token - 1 + slice.length
		const listed = slice
			.filter((change) => !change.driveId || allDrives)
			.filter((change) => includeRemoved || !change.removed)
			.map((change) => {
				if (change.changeType === 'drive') {
					return {
						kind: 'drive#change',
						changeType: 'drive',
						driveId: change.driveId,
						removed: change.removed,
						time: change.time,
					}
				}
				const file = files.get(change.fileId!)
				return {
					kind: 'drive#change',
					changeType: 'file',
					fileId: change.fileId,
					removed: change.removed || !file,
					time: change.time,
					...(file && !change.removed ? { file: resource(file) } : {}),
				}
			})
		return json({
			kind: 'drive#changeList',
			changes: listed,
			...(end < changes.length ? { nextPageToken: String(end + 1) } : { newStartPageToken: String(end + 1) }),
		})
	})

	route('POST', /^\/drive\/v3\/changes\/watch$/, async ({ request, url }) => {
		if (!url.searchParams.get('pageToken')) return apiError(400, 'required', 'Required parameter: pageToken')
		const body = (await request.json()) as {
			id?: string
			type?: string
			address?: string
			token?: string
			expiration?: string
		}
		if (!body.id || body.type !== 'web_hook' || !body.address) return apiError(400, 'invalid', 'Invalid channel')
		if (state.httpsOnly && !body.address.startsWith('https://')) {
			return apiError(400, 'push.webhookUrlNotHttps', `WebHook callback must be HTTPS: ${body.address}`)
		}
		if (channels.some((channel) => channel.id === body.id)) {
			return apiError(400, 'channelIdNotUnique', `Channel id ${body.id} not unique`)
		}
		const asked = body.expiration ? Number(body.expiration) : Date.now() + 3600_000
		const channel: Channel = {
			id: body.id,
			resourceId: `resource-${crypto.randomUUID().slice(0, 8)}`,
			token: body.token ?? '',
			address: body.address,
			expiration: Math.min(asked, Date.now() + channelLifetime),
			stopped: false,
			messages: 0,
		}
		channels.push(channel)
		return json({
			kind: 'api#channel',
			id: channel.id,
			resourceId: channel.resourceId,
			resourceUri: `${google.url}/drive/v3/changes?alt=json&pageToken=${url.searchParams.get('pageToken')}`,
			token: channel.token,
			expiration: String(channel.expiration),
		})
	})

	route('POST', /^\/drive\/v3\/channels\/stop$/, async ({ request }) => {
		const body = (await request.json()) as { id?: string; resourceId?: string }
		const channel = channels.find((c) => c.id === body.id && c.resourceId === body.resourceId && !c.stopped)
		if (!channel) return apiError(404, 'notFound', `Channel '${body.id}' not found for project`)
		channel.stopped = true
		return new Response(null, { status: 204 })
	})

	function put(
		input: Omit<DriveFile, 'id' | 'version' | 'modifiedTime' | 'trashed' | 'parents'> & {
			parents?: string[]
		},
	): DriveFile {
		const file: DriveFile = {
			...input,
			id: newId(input.mimeType === FOLDER ? 'fold' : 'file'),
			parents: input.parents ?? ['root'],
			trashed: false,
			version: 1,
			modifiedTime: now(),
		}
		files.set(file.id, file)
		record(file)
		return file
	}

	const descendants = (id: string): DriveFile[] =>
		[...files.values()]
			.filter((file) => file.parents.includes(id))
			.flatMap((file) => [file, ...(file.mimeType === FOLDER ? descendants(file.id) : [])])

	return {
		files,
		channels,
		state,
		folder: (name: string, parent = 'root') => put({ name, mimeType: FOLDER, parents: [parent] }).id,
		/** A Google Doc whose Markdown export is `markdown`. */
		doc: (name: string, markdown: string, parent = 'root') =>
			put({ name, mimeType: DOC, parents: [parent], exports: { 'text/markdown': markdown, 'text/plain': markdown } }),
		/** A Google Sheet: its xlsx export holds every sheet; CSV only the first, as Drive's does. */
		sheet: (name: string, xlsx: Uint8Array, firstSheetCsv: string, parent = 'root') =>
			put({ name, mimeType: SHEET, parents: [parent], exports: { [XLSX]: xlsx, 'text/csv': firstSheetCsv } }),
		slides: (name: string, text: string, parent = 'root') =>
			put({ name, mimeType: SLIDES, parents: [parent], exports: { 'text/plain': text } }),
		/** A Google file of another kind (a form, a drawing), with whatever exports it has. */
		googleFile: (name: string, mimeType: string, exports: Record<string, string> = {}, parent = 'root') =>
			put({ name, mimeType, parents: [parent], exports }),
		file: (name: string, mimeType: string, content: Uint8Array | string, parent = 'root', claimedSize?: number) =>
			put({ name, mimeType, parents: [parent], content: bytesOf(content), ...(claimedSize ? { claimedSize } : {}) }),
		/** A shared drive; its id also names its root folder. */
		sharedDrive(name: string): string {
			const id = newId('0A')
			drives.set(id, name)
			files.set(id, {
				id,
				name,
				mimeType: FOLDER,
				parents: [],
				trashed: false,
				version: 1,
				modifiedTime: now(),
				driveId: id,
			})
			return id
		},
		/** A Drawing: exports as PDF, JPEG, PNG or SVG (Drive's export table). */
		drawing: (name: string, pdf: Uint8Array, parent = 'root') =>
			put({
				name,
				mimeType: DRAWING,
				parents: [parent],
				exports: { 'application/pdf': pdf, 'image/svg+xml': '<svg/>' },
			}),
		/** A shortcut to `targetId` (`application/vnd.google-apps.shortcut`, with `shortcutDetails.targetId`). */
		shortcut: (name: string, targetId: string, parent = 'root') =>
			put({ name, mimeType: SHORTCUT, parents: [parent], targetId }),
		/** The owner turns downloading off for readers (`capabilities.canDownload` false). */
		forbidDownload(id: string) {
			const file = files.get(id)!
			Object.assign(file, { canDownload: false, version: file.version + 1, modifiedTime: now() })
			record(file)
		},
		/**
		 * A shared drive deleted, or the user's membership of it ended: the feed reports it as one `changeType: drive`
		 * change with `removed: true`, and its files are no longer reachable. Whether Drive also reports each file
		 * removed is not documented; the emulator reports none, the case a client must survive.
		 */
		removeSharedDrive(driveId: string) {
			drives.delete(driveId)
			for (const [id, file] of files) if (file.driveId === driveId) files.delete(id)
			changes.push({ changeType: 'drive', driveId, removed: true, time: now() })
		},
		/** A file in a shared drive (directly under its root, or under `parent`). */
		sharedFile(driveId: string, name: string, markdown: string, parent = driveId) {
			const file = put({ name, mimeType: DOC, parents: [parent], exports: { 'text/markdown': markdown }, driveId })
			return file
		},
		/** Changes a file (content, name or exports) as an edit in Drive does. */
		update(id: string, patch: Partial<Pick<DriveFile, 'name' | 'content' | 'exports' | 'parents'>>) {
			const file = files.get(id)!
			Object.assign(file, patch, { version: file.version + 1, modifiedTime: now() })
			record(file)
		},
		/** Moves a file (or a folder with everything in it) to the trash. */
		trash(id: string) {
			for (const file of [files.get(id)!, ...descendants(id)]) {
				file.trashed = true
				file.version++
				record(file)
			}
		},
		/** Deletes a file for good (or the user lost access): the feed reports it removed. */
		remove(id: string) {
			const file = files.get(id)!
			files.delete(id)
			record(file, true)
		},
		liveChannels: () => channels.filter((channel) => !channel.stopped),
		/** The notification Drive sends a channel; `token` and `id` override the real ones (forgeries). */
		notification(channel: Channel, state = 'change', over: { token?: string; id?: string } = {}) {
			channel.messages++
			return {
				'x-goog-channel-id': over.id ?? channel.id,
				'x-goog-channel-token': over.token ?? channel.token,
				'x-goog-channel-expiration': new Date(channel.expiration).toUTCString(),
				'x-goog-resource-id': channel.resourceId,
				'x-goog-resource-uri': `${google.url}/drive/v3/changes?alt=json`,
				'x-goog-resource-state': state,
				'x-goog-message-number': String(channel.messages),
			}
		},
		downloads: () => google.log.filter((line) => line.includes('alt=media') || line.includes('/export?')).length,
	}
}

export type DriveEmulator = ReturnType<typeof addDriveRoutes>
