import type { SyncContext, SyncEvent } from '../../core/index.ts'
import { endsRun } from '../google/index.ts'
import { type DriveApi, type DriveFile, driveFor, sharedDrives } from './client.ts'
import { FOLDER, isDocument, readFile } from './content.ts'
import { ALL_DRIVES, FILE_FIELDS, type GoogleDriveCursor, type GoogleDriveSettings } from './options.ts'
import { folderScope, scopeKey } from './scope.ts'

type Event = SyncEvent<GoogleDriveCursor>
type Limits = { maxFileBytes: number }

const PAGE_SIZE = 100
/** Chosen folders are listed again daily (the feed names a folder moved, not the files in it). */
const FOLDERS_RELIST_MS = 24 * 3600_000
/** The whole Drive is listed again weekly, catching what the feed never reported. */
const DRIVE_RELIST_MS = 7 * 24 * 3600_000

/**
 * A full listing (first sync, a new folder selection, a periodic relist, a shared drive gone) and then the changes
 * feed. The changes token is taken before the listing, so a file changed while it runs comes again from the feed; a
 * run that stops mid-listing lists again from the same token, reading only files whose version it does not hold.
 */
export async function* syncDrive(
	ctx: SyncContext<GoogleDriveSettings>,
	cursor: GoogleDriveCursor | null,
	options: { apiUrl: string | undefined } & Limits,
): AsyncGenerator<Event> {
	const api = await driveFor(ctx, options.apiUrl)
	const scope = scopeKey(ctx.settings)
	let changesToken = cursor?.scope === scope ? cursor.changesToken : null
	const relistAfter = ctx.settings.folders.length > 0 ? FOLDERS_RELIST_MS : DRIVE_RELIST_MS
	if (cursor?.listed && Date.now() - Number(cursor.listedAt ?? 0) > relistAfter) changesToken = null
	let listedAt = cursor?.scope === scope ? Number(cursor.listedAt ?? 0) : 0
	const checkpoint = (token: string, listed: boolean): Event => ({
		type: 'checkpoint',
		cursor: { changesToken: token, scope, listed, listedAt },
	})
	async function* listFrom(token: string): AsyncGenerator<Event> {
		yield checkpoint(token, false)
		yield* fullListing(api, ctx, options, () => checkpoint(token, false))
		listedAt = Date.now()
		yield checkpoint(token, true)
	}
	if (!changesToken || !cursor?.listed) {
		if (!changesToken) {
			const { data } = await api.call(() => api.drive.changes.getStartPageToken({ supportsAllDrives: true }))
			if (!data.startPageToken) throw new Error('Drive gave no start page token')
			changesToken = data.startPageToken
		}
		yield* listFrom(changesToken)
	}
	const outcome = yield* changesSince(api, ctx, changesToken, checkpoint, options)
	// A shared drive deleted or left: its files are found missing by listing everything again.
	if (outcome.driveRemoved) yield* listFrom(outcome.token)
}

/** Where a listing looks: My Drive and what is shared with the account, or one shared drive. */
type Corpus = { corpora: 'user' } | { corpora: 'drive'; driveId: string }

const corpusOf = (driveId: string | null | undefined): Corpus =>
	driveId ? { corpora: 'drive', driveId } : { corpora: 'user' }

async function* pages(
	api: DriveApi,
	ctx: Pick<SyncContext, 'signal'>,
	q: string,
	corpus: Corpus,
): AsyncGenerator<{ files: DriveFile[]; incomplete: boolean }> {
	let pageToken: string | undefined
	do {
		const { data } = await api.call(() =>
			api.drive.files.list(
				{
					q,
					...corpus,
					...ALL_DRIVES,
					pageSize: PAGE_SIZE,
					fields: `nextPageToken,incompleteSearch,files(${FILE_FIELDS})`,
					...(pageToken ? { pageToken } : {}),
				},
				{ signal: ctx.signal },
			),
		)
		yield { files: data.files ?? [], incomplete: data.incompleteSearch === true }
		pageToken = data.nextPageToken ?? undefined
	} while (pageToken)
}

/**
 * Every file in scope (the whole Drive, or the chosen folders' descendants), then the set that exists now. Google
 * recommends `user` or `drive` corpora over `allDrives`, which may search incompletely: My Drive is listed as
 * `user`, each shared drive (or a folder in one) as `drive`. A listing Google says is incomplete reconciles nothing.
 */
async function* fullListing(
	api: DriveApi,
	ctx: SyncContext<GoogleDriveSettings>,
	limits: Limits,
	checkpoint: () => Event,
): AsyncGenerator<Event> {
	const present = new Set<string>()
	const queries: { q: string; corpus: Corpus }[] = []
	const folders: { id: string; driveId: string | null | undefined }[] = []
	if (ctx.settings.folders.length === 0) {
		const q = `trashed = false and mimeType != '${FOLDER}'`
		queries.push({ q, corpus: { corpora: 'user' } })
		for (const shared of await sharedDrives(api, ctx.signal)) queries.push({ q, corpus: corpusOf(shared.id) })
	} else {
		for (const folder of ctx.settings.folders) {
			const { data } = await api.call(() =>
				api.drive.files.get(
					{ fileId: folder.id, fields: 'id,driveId', supportsAllDrives: true },
					{ signal: ctx.signal },
				),
			)
			folders.push({ id: folder.id, driveId: data.driveId })
		}
	}
	const seenFolders = new Set<string>()
	const nextQuery = (): { q: string; corpus: Corpus } | undefined => {
		if (ctx.settings.folders.length === 0) return queries.shift()
		let folder = folders.shift()
		while (folder !== undefined && seenFolders.has(folder.id)) folder = folders.shift()
		if (folder === undefined) return undefined
		seenFolders.add(folder.id)
		return { q: `'${folder.id}' in parents and trashed = false`, corpus: corpusOf(folder.driveId) }
	}
	let complete = true
	for (let query = nextQuery(); query !== undefined; query = nextQuery()) {
		try {
			for await (const page of pages(api, ctx, query.q, query.corpus)) {
				if (page.incomplete) complete = false
				for (const file of page.files) {
					if (file.mimeType === FOLDER && file.id) folders.push({ id: file.id, driveId: file.driveId })
					if (!file.id || !isDocument(file) || present.has(file.id)) continue
					present.add(file.id)
					yield await readFile(api, ctx, file, limits)
				}
				yield checkpoint()
			}
		} catch (error) {
			// One shared drive or folder Google refused (gone meanwhile, access lost): the others are still read, and
			// the runtime deletes nothing on this listing.
			if (endsRun(error)) throw error
			yield { type: 'scope-failed', scope: query.q, error: String((error as Error).message ?? error) }
		}
	}
	if (complete) yield { type: 'present', externalIds: [...present], complete: true }
	else ctx.logger.warn('Drive said its search was incomplete: nothing is deleted on this listing', {})
}

/**
 * The changes feed from `token`: trashed and removed files deleted, files in scope read, a checkpoint per page. A
 * removed shared drive stops the feed at that page (`driveRemoved`): the feed need not name its files.
 */
async function* changesSince(
	api: DriveApi,
	ctx: SyncContext<GoogleDriveSettings>,
	token: string,
	checkpoint: (next: string, listed: boolean) => Event,
	limits: Limits,
): AsyncGenerator<Event, { token: string; driveRemoved: boolean }> {
	const inScope = folderScope(api, ctx.settings)
	let pageToken = token
	for (;;) {
		const { data } = await api.call(() =>
			api.drive.changes.list(
				{
					pageToken,
					...ALL_DRIVES,
					includeRemoved: true,
					pageSize: PAGE_SIZE,
					fields: `nextPageToken,newStartPageToken,changes(changeType,fileId,driveId,removed,file(${FILE_FIELDS}))`,
				},
				{ signal: ctx.signal },
			),
		)
		let driveRemoved = false
		for (const change of data.changes ?? []) {
			if (change.changeType === 'drive') {
				if (change.removed) driveRemoved = true
				continue
			}
			if (change.changeType && change.changeType !== 'file') continue
			const id = change.fileId
			if (!id) continue
			const file = change.file
			if (change.removed || !file || file.trashed) {
				yield { type: 'delete', externalId: id }
				continue
			}
			if (!isDocument(file)) continue
			// Moved out of the chosen folders: gone from this connection.
			if (!(await inScope.contains(file))) {
				yield { type: 'delete', externalId: id }
				continue
			}
			yield await readFile(api, ctx, file, limits)
		}
		const next = data.nextPageToken ?? data.newStartPageToken
		if (!next) throw new Error('Drive gave neither a next page nor a new start page token')
		// Not yet listed after a shared drive went: a run that stops here lists again when it resumes.
		yield checkpoint(next, !driveRemoved)
		if (driveRemoved) return { token: next, driveRemoved }
		if (!data.nextPageToken) return { token: next, driveRemoved }
		pageToken = next
	}
}
