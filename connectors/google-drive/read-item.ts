import { type ExternalDocument, ItemError, type SyncContext } from '../../core/index.ts'
import { statusOf } from '../google/index.ts'
import { type DriveFile, driveFor } from './client.ts'
import { isDocument, readFile } from './content.ts'
import { FILE_FIELDS, type GoogleDriveSettings } from './options.ts'
import { folderScope } from './scope.ts'

/** One file read again (a failed one due for retry): its document, `gone` or `unchanged`. */
export async function readDriveItem(
	ctx: SyncContext<GoogleDriveSettings>,
	externalId: string,
	options: { apiUrl: string | undefined; maxFileBytes: number },
): Promise<ExternalDocument | 'gone' | 'unchanged'> {
	const api = await driveFor(ctx, options.apiUrl)
	let file: DriveFile
	try {
		file = (
			await api.call(() => api.drive.files.get({ fileId: externalId, fields: FILE_FIELDS, supportsAllDrives: true }))
		).data
	} catch (error) {
		if (statusOf(error) === 404) return 'gone'
		throw error
	}
	if (file.trashed || !isDocument(file) || !(await folderScope(api, ctx.settings).contains(file))) return 'gone'
	const event = await readFile(api, ctx, file, options)
	if (event.type === 'upsert') return event.document
	if (event.type === 'delete') return 'gone'
	if (event.type === 'unchanged') return 'unchanged'
	throw new ItemError(event.error, { retry: event.retry ?? 'transient' })
}
