import type { ResourcePage, SyncContext } from '../../core/index.ts'
import { statusOf } from '../google/index.ts'
import { driveFor, sharedDrives } from './client.ts'
import { FOLDER } from './content.ts'
import { ALL_DRIVES, type GoogleDriveSettings } from './options.ts'

/** Drive ids are URL-safe base64-like text; anything else is not an id (and must never reach a query). */
const DRIVE_ID = /^[\w-]{1,200}$/
const MAX_FOLDERS = 500

/**
 * Folders to choose from: under `parentId`, or at the top the shared drives and My Drive's folders. Drive pages
 * by token, so page N walks the tokens before it.
 */
export async function listFolders(
	apiUrl: string | undefined,
	ctx: SyncContext<GoogleDriveSettings>,
	query: { page: number; perPage: number; parentId: string | null },
): Promise<ResourcePage> {
	if (query.parentId !== null && !DRIVE_ID.test(query.parentId)) throw new Error('parentId is not a Drive folder id')
	const api = await driveFor(ctx, apiUrl)
	const parent = query.parentId ?? 'root'
	const resources: Record<string, unknown>[] = []
	if (query.parentId === null && query.page === 1) {
		for (const shared of await sharedDrives(api)) {
			resources.push({ id: shared.id, name: shared.name, mimeType: FOLDER, kind: 'sharedDrive', parentId: null })
		}
	}
	let pageToken: string | undefined
	for (let page = 1; page <= query.page; page++) {
		const { data } = await api.call(() =>
			api.drive.files.list({
				q: `'${parent}' in parents and mimeType = '${FOLDER}' and trashed = false`,
				corpora: 'allDrives',
				...ALL_DRIVES,
				pageSize: query.perPage,
				fields: 'nextPageToken,files(id,name,mimeType,parents,driveId)',
				...(pageToken ? { pageToken } : {}),
			}),
		)
		if (page === query.page) {
			for (const folder of data.files ?? []) {
				resources.push({
					id: folder.id,
					name: folder.name,
					mimeType: FOLDER,
					kind: 'folder',
					parentId: query.parentId,
					...(folder.driveId ? { driveId: folder.driveId } : {}),
				})
			}
		}
		pageToken = data.nextPageToken ?? undefined
		if (!pageToken) break
	}
	return { resources }
}

/** `[{ id }]` of folders or shared drives, each checked with Drive; none: the whole Drive. */
export async function configureFolders(
	apiUrl: string | undefined,
	ctx: SyncContext<GoogleDriveSettings>,
	resources: Record<string, unknown>[],
): Promise<GoogleDriveSettings> {
	if (resources.length > MAX_FOLDERS) throw new Error(`at most ${MAX_FOLDERS} folders can be chosen`)
	const ids = resources.map((resource, index) => {
		if (typeof resource.id !== 'string' || !DRIVE_ID.test(resource.id)) {
			throw new Error(`resources[${index}].id must be a Drive folder id`)
		}
		return resource.id
	})
	if (ids.length === 0) return { folders: [] }
	const api = await driveFor(ctx, apiUrl)
	const folders = []
	for (const id of new Set(ids)) {
		let found: { name?: string | null; mimeType?: string | null }
		try {
			found = (
				await api.call(() => api.drive.files.get({ fileId: id, fields: 'id,name,mimeType', supportsAllDrives: true }))
			).data
		} catch (error) {
			if (statusOf(error) === 404) throw new Error(`Drive has no folder ${id} this account can read`)
			throw error
		}
		if (found.mimeType !== FOLDER) throw new Error(`${id} is not a folder`)
		folders.push({ id, name: found.name ?? id })
	}
	return { folders }
}
