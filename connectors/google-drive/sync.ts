import type { SyncContext, SyncEvent } from '../../core/index.ts'
import { type Drive, type DriveFile, driveFor } from './client.ts'
import { FOLDER, isDocument, readFile } from './content.ts'
import { ALL_DRIVES, FILE_FIELDS, type GoogleDriveCursor, type GoogleDriveSettings } from './options.ts'
import { folderScope, scopeKey } from './scope.ts'

type Event = SyncEvent<GoogleDriveCursor>
type Limits = { maxFileBytes: number }

const PAGE_SIZE = 100
const RELIST_MS = 24 * 3600_000

/**
 * A full listing (first sync, or a new folder selection) and then the changes feed. The changes token is taken
 * before the listing, so a file changed while it runs comes again from the feed; a run that stops mid-listing lists
 * again from the same token, reading only files whose version it does not hold.
 */
export async function* syncDrive(
	ctx: SyncContext<GoogleDriveSettings>,
	cursor: GoogleDriveCursor | null,
	options: { apiUrl: string | undefined } & Limits,
): AsyncGenerator<Event> {
	const drive = await driveFor(ctx, options.apiUrl)
	const scope = scopeKey(ctx.settings)
	let changesToken = cursor?.scope === scope ? cursor.changesToken : null
	// Chosen folders are listed again daily: the feed names a folder moved in or out, not the files inside it.
	if (ctx.settings.folders.length > 0 && cursor?.listed && Date.now() - Number(cursor.listedAt ?? 0) > RELIST_MS) {
		changesToken = null
	}
	let listedAt = cursor?.scope === scope ? Number(cursor.listedAt ?? 0) : 0
	const checkpoint = (token: string, listed: boolean): Event => ({
		type: 'checkpoint',
		cursor: { changesToken: token, scope, listed, listedAt },
	})
	if (!changesToken || !cursor?.listed) {
		if (!changesToken) {
			const { data } = await drive.changes.getStartPageToken({ supportsAllDrives: true })
			if (!data.startPageToken) throw new Error('Drive gave no start page token')
			changesToken = data.startPageToken
		}
		const token = changesToken
		yield checkpoint(token, false)
		yield* fullListing(drive, ctx, options, () => checkpoint(token, false))
		listedAt = Date.now()
		yield checkpoint(token, true)
	}
	yield* changesSince(drive, ctx, changesToken, (next) => checkpoint(next, true), options)
}

async function* pages(drive: Drive, ctx: Pick<SyncContext, 'signal'>, q: string): AsyncGenerator<DriveFile[]> {
	let pageToken: string | undefined
	do {
		const { data } = await drive.files.list(
			{
				q,
				corpora: 'allDrives',
				...ALL_DRIVES,
				pageSize: PAGE_SIZE,
				fields: `nextPageToken,files(${FILE_FIELDS})`,
				...(pageToken ? { pageToken } : {}),
			},
			{ signal: ctx.signal },
		)
		yield data.files ?? []
		pageToken = data.nextPageToken ?? undefined
	} while (pageToken)
}

/** Every file in scope (the whole Drive, or the chosen folders' descendants), then the set that exists now. */
async function* fullListing(
	drive: Drive,
	ctx: SyncContext<GoogleDriveSettings>,
	limits: Limits,
	checkpoint: () => Event,
): AsyncGenerator<Event> {
	const present = new Set<string>()
	const queue = ctx.settings.folders.map((folder) => folder.id)
	const queries = queue.length === 0 ? [`trashed = false and mimeType != '${FOLDER}'`] : null
	const seenFolders = new Set<string>()
	const nextQuery = (): string | undefined => {
		if (queries) return queries.shift()
		let folder = queue.shift()
		while (folder !== undefined && seenFolders.has(folder)) folder = queue.shift()
		if (folder === undefined) return undefined
		seenFolders.add(folder)
		return `'${folder}' in parents and trashed = false`
	}
	for (let q = nextQuery(); q !== undefined; q = nextQuery()) {
		for await (const files of pages(drive, ctx, q)) {
			for (const file of files) {
				if (file.mimeType === FOLDER && file.id) queue.push(file.id)
				if (!file.id || !isDocument(file) || present.has(file.id)) continue
				present.add(file.id)
				yield await readFile(drive, ctx, file, limits)
			}
			yield checkpoint()
		}
	}
	yield { type: 'present', externalIds: [...present], complete: true }
}

/** The changes feed from `token`: trashed and removed files deleted, files in scope read, a checkpoint per page. */
async function* changesSince(
	drive: Drive,
	ctx: SyncContext<GoogleDriveSettings>,
	token: string,
	checkpoint: (next: string) => Event,
	limits: Limits,
): AsyncGenerator<Event> {
	const inScope = folderScope(drive, ctx.settings)
	let pageToken = token
	for (;;) {
		const { data } = await drive.changes.list(
			{
				pageToken,
				...ALL_DRIVES,
				includeRemoved: true,
				pageSize: PAGE_SIZE,
				fields: `nextPageToken,newStartPageToken,changes(changeType,fileId,removed,file(${FILE_FIELDS}))`,
			},
			{ signal: ctx.signal },
		)
		for (const change of data.changes ?? []) {
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
			yield await readFile(drive, ctx, file, limits)
		}
		const next = data.nextPageToken ?? data.newStartPageToken
		if (!next) throw new Error('Drive gave neither a next page nor a new start page token')
		yield checkpoint(next)
		if (!data.nextPageToken) return
		pageToken = next
	}
}
