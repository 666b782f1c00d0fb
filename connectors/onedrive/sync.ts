import {
	type ExternalDocument,
	ItemError,
	ProviderHttpError,
	providerFetch,
	type SyncContext,
	type SyncEvent,
} from '../../core/index.ts'
import { codeOf, type GraphSession, graphSession, relativeLink, statusOf } from './client.ts'
import { FolderTree } from './folders.ts'
import { type Endpoints, type OnedriveCursor, type OnedriveSettings, scopeOf } from './options.ts'
import type { DriveItem, DrivePage } from './types.ts'

type Event = SyncEvent<OnedriveCursor>

const SELECT = 'id,name,size,eTag,cTag,webUrl,lastModifiedDateTime,file,folder,package,root,deleted,parentReference'
/** The whole drive from the beginning; its last page's deltaLink then lists only what changed. */
const FULL_LISTING = `/me/drive/root/delta?$select=${SELECT}`

interface Run {
	graph: GraphSession
	ctx: SyncContext<OnedriveSettings>
	endpoints: Endpoints
	scope: string
	chosen: Set<string>
}

/** How one pass over the delta feed is read. */
interface PassMode {
	/** The first listing of a connection: a checkpoint after every page, so a crash resumes where it stopped. */
	initial: boolean
	/** After a reset or another folder selection: items the listing no longer has are deleted at its end. */
	reconcile: boolean
}

type PassEnd = 'done' | 'structure-changed' | 'gone'

/**
 * The drive's delta feed: first the whole drive, then from the last deltaLink only what changed. An expired link
 * (410, resyncRequired), another folder selection, or a folder moved or deleted (delta lists the folder, not what is
 * under it) lists the whole drive again and deletes what it no longer holds.
 */
export async function* syncOnedrive(
	ctx: SyncContext<OnedriveSettings>,
	cursor: OnedriveCursor | null,
	endpoints: Endpoints,
): AsyncGenerator<Event> {
	const run: Run = {
		graph: await graphSession(endpoints, ctx),
		ctx,
		endpoints,
		scope: scopeOf(ctx.settings),
		chosen: new Set(ctx.settings.folders.map((folder) => folder.id)),
	}
	// A relisting called for by a deleted or moved folder that has not been applied yet comes first.
	if (cursor && cursor.scope === run.scope && cursor.relist !== true) {
		const initial = cursor.initial === true
		const end = yield* pass(run, cursor.link, treeOf(run, cursor.folders), { initial, reconcile: false })
		if (end === 'done') return
		ctx.logger.info('listing the OneDrive again', { connectionId: ctx.connectionId, reason: end })
	}
	// Every listing of the whole drive started in this run reconciles at its end (a first one holds nothing to delete;
	// a cursor the runtime dropped does); a first one also checkpoints each page, and one resumed after a crash
	// (above, from its link) sees only part of the drive, so it does not reconcile.
	yield* pass(run, FULL_LISTING, treeOf(run, null), { initial: cursor === null, reconcile: true })
}

function treeOf(run: Run, json: string | null): FolderTree {
	return new FolderTree(run.chosen, json, async (folderId) => {
		try {
			const item = (await run.graph.call((client) =>
				client
					.api(`/me/drive/items/${encodeURIComponent(folderId)}`)
					.select('id,parentReference,root')
					.get(),
			)) as DriveItem
			return item.root ? null : (item.parentReference?.id ?? null)
		} catch (error) {
			if (statusOf(error) === 404) return null
			throw error
		}
	})
}

const isReset = (error: unknown) => statusOf(error) === 410 || codeOf(error) === 'resyncRequired'

async function* pass(run: Run, start: string, tree: FolderTree, mode: PassMode): AsyncGenerator<Event, PassEnd> {
	const present: string[] = []
	let structureChanged = false
	let link = start
	for (;;) {
		let page: DrivePage
		try {
			page = await run.graph.call((client) => client.api(relativeLink(link, run.endpoints.graphUrl)).get())
		} catch (error) {
			if (isReset(error) && !mode.reconcile) return 'gone'
			throw error
		}
		for (const item of page.value ?? []) {
			const parentId = item.parentReference?.id ?? null
			if (item.deleted) {
				if (tree.isFolder(item.id)) {
					structureChanged = true
					tree.remove(item.id)
				} else yield { type: 'delete', externalId: item.id }
				continue
			}
			if (item.root) {
				tree.record(item.id, null)
				continue
			}
			if (item.folder || item.package) {
				if (tree.record(item.id, parentId) && run.chosen.size > 0) structureChanged = true
				continue
			}
			if (!item.file) continue
			if (!(await tree.contains(parentId))) {
				// Outside the chosen folders: ignored, and deleted if it was imported before it moved out (a listing that
				// reconciles deletes it at its end anyway).
				if (!mode.initial && !mode.reconcile) yield { type: 'delete', externalId: item.id }
				continue
			}
			present.push(item.id)
			yield* importFile(run, item)
		}
		const next = page['@odata.nextLink']
		if (next) {
			link = next
			if (mode.initial) yield checkpoint(run, next, tree, true)
			continue
		}
		if (mode.reconcile) yield { type: 'present', externalIds: present, complete: true }
		const relist = structureChanged && !mode.reconcile
		yield checkpoint(run, page['@odata.deltaLink'] ?? FULL_LISTING, tree, false, relist)
		return relist ? 'structure-changed' : 'done'
	}
}

const checkpoint = (run: Run, link: string, tree: FolderTree, initial: boolean, relist = false): Event => ({
	type: 'checkpoint',
	cursor: { link, scope: run.scope, folders: tree.json(), initial, relist },
})

/**
 * What changes with the content only: the content hash (quickXorHash is the one both account kinds carry), else
 * cTag (which OneDrive for Business delta leaves out), else eTag (which also moves with metadata).
 */
export function contentVersion(item: DriveItem): string {
	const hashes = item.file?.hashes
	return (
		hashes?.quickXorHash ??
		hashes?.sha256Hash ??
		hashes?.sha1Hash ??
		item.cTag ??
		item.eTag ??
		item.lastModifiedDateTime ??
		''
	)
}

async function* importFile(run: Run, item: DriveItem): AsyncGenerator<Event> {
	const name = item.name ?? item.id
	try {
		const read = await readFile(run, item)
		if (read === 'unchanged') yield { type: 'unchanged', externalId: item.id }
		else yield { type: 'upsert', document: read }
	} catch (error) {
		if (!(error instanceof ItemError)) throw error
		yield {
			type: 'failure',
			externalId: item.id,
			error: `could not download ${name}: ${error.message}`,
			retry: error.retry,
		}
	}
}

/** The file as a document, or `unchanged` (same content and name, or over the upload cap: counted as skipped). */
async function readFile(run: Run, item: DriveItem): Promise<ExternalDocument | 'unchanged'> {
	const { ctx, endpoints } = run
	const name = item.name ?? item.id
	// The name is the document's title.
	const version = `${contentVersion(item)}|${name}`
	if (await ctx.hasVersion(item.id, version)) return 'unchanged'
	if ((item.size ?? 0) > endpoints.maxFileBytes) {
		ctx.logger.info('skipped a OneDrive file over the upload cap', { externalId: item.id, size: item.size })
		return 'unchanged'
	}
	const bytes = await download(run, item.id)
	if (bytes.byteLength > endpoints.maxFileBytes) return 'unchanged'
	return documentOf(item, name, version, bytes)
}

/** One failed item read again (the runtime's retry): `gone` when Graph no longer has it as a file. */
export async function readOnedriveItem(
	ctx: SyncContext<OnedriveSettings>,
	externalId: string,
	endpoints: Endpoints,
): Promise<ExternalDocument | 'gone' | 'unchanged'> {
	const run: Run = {
		graph: await graphSession(endpoints, ctx),
		ctx,
		endpoints,
		scope: scopeOf(ctx.settings),
		chosen: new Set(ctx.settings.folders.map((folder) => folder.id)),
	}
	let item: DriveItem
	try {
		item = (await run.graph.call((client) =>
			client
				.api(`/me/drive/items/${encodeURIComponent(externalId)}`)
				.select(SELECT)
				.get(),
		)) as DriveItem
	} catch (error) {
		if (statusOf(error) === 404) return 'gone'
		throw error
	}
	if (item.deleted || !item.file) return 'gone'
	return readFile(run, item)
}

/**
 * `/content` answers 302 to a pre-authenticated URL valid "a few minutes"; it is fetched without the token. The
 * download host refusing it (401, 403: the URL lapsed, or a policy) is not Graph refusing the grant: a fresh URL is
 * asked for once, then the item fails on its own (and is tried again on a later run).
 */
async function download(run: Run, itemId: string): Promise<Uint8Array> {
	for (let attempt = 0; ; attempt++) {
		const location = await downloadUrl(run, itemId)
		let response: Response
		try {
			// Throttling and outages at the download host (429, 503 with Retry-After) are waited out here.
			response = await providerFetch(location, { policy: { signal: run.ctx.signal, limitKey: run.ctx.connectionId } })
		} catch (error) {
			if (!(error instanceof ProviderHttpError)) throw error
			response = new Response(null, { status: error.status })
		}
		if (response.ok) return new Uint8Array(await response.arrayBuffer())
		await response.body?.cancel()
		if ((response.status === 401 || response.status === 403) && attempt === 0) continue
		throw new ItemError(`the download host answered ${response.status}`, {
			retry: response.status === 404 ? 'permanent' : 'transient',
		})
	}
}

/** The Graph hop alone: the redirect is not followed, so a 401 here is Graph's (the token), never the host's. */
async function downloadUrl(run: Run, itemId: string): Promise<string> {
	const { RedirectHandlerOptions, ResponseType } = await import('@microsoft/microsoft-graph-client')
	return run.graph.call(async (client) => {
		const response = (await client
			.api(`/me/drive/items/${encodeURIComponent(itemId)}/content`)
			.middlewareOptions([new RedirectHandlerOptions(5, () => false)])
			.responseType(ResponseType.RAW)
			.get()) as Response
		const location = response.headers.get('location')
		await response.body?.cancel()
		if (response.status === 401) {
			throw Object.assign(new Error('Microsoft Graph refused the token'), { status: 401 })
		}
		if (response.status >= 300 && response.status < 400 && location) return location
		throw new ItemError(`Microsoft Graph answered ${response.status} for the content of ${itemId}`, {
			retry: response.status === 404 ? 'permanent' : 'transient',
		})
	})
}

function documentOf(item: DriveItem, name: string, version: string, bytes: Uint8Array): ExternalDocument {
	return {
		externalId: item.id,
		version,
		title: name,
		file: { bytes, name, ...(item.file?.mimeType ? { mimeType: item.file.mimeType } : {}) },
		url: item.webUrl ?? null,
		metadata: {
			...(item.parentReference?.driveId ? { driveId: item.parentReference.driveId } : {}),
			...(item.lastModifiedDateTime ? { lastModified: item.lastModifiedDateTime } : {}),
			...(item.size !== undefined ? { size: item.size } : {}),
		},
		sourceType: 'onedrive',
	}
}
