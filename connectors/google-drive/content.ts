import type { ExternalDocument, SyncContext, SyncEvent } from '../../core/index.ts'
import { endsRun, reasonOf, statusOf } from '../google/index.ts'
import type { DriveApi, DriveFile } from './client.ts'
import { MAX_EXPORT_BYTES } from './options.ts'

const GOOGLE_APPS = 'application/vnd.google-apps.'
export const FOLDER = `${GOOGLE_APPS}folder`
const SHORTCUT = `${GOOGLE_APPS}shortcut`
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'

/**
 * How each Google file kind is exported. Sheets go out as xlsx through file ingestion: Drive's CSV export holds only
 * the first sheet, and xlsx holds every sheet in one call with no extra scope (the Sheets API would need one).
 */
const EXPORTS: Record<string, { mimeType: string; as: 'text' | 'file'; extension?: string; sourceType: string }> = {
	[`${GOOGLE_APPS}document`]: { mimeType: 'text/markdown', as: 'text', sourceType: 'google_doc' },
	[`${GOOGLE_APPS}spreadsheet`]: { mimeType: XLSX, as: 'file', extension: 'xlsx', sourceType: 'google_sheet' },
	[`${GOOGLE_APPS}presentation`]: { mimeType: 'text/plain', as: 'text', sourceType: 'google_slide' },
	// Drawings export as PDF, JPEG, PNG or SVG; PDF keeps their text for file ingestion.
	[`${GOOGLE_APPS}drawing`]: {
		mimeType: 'application/pdf',
		as: 'file',
		extension: 'pdf',
		sourceType: 'google_drawing',
	},
}

/**
 * Folders and shortcuts are structure, not documents: a shortcut's target is imported where it lies (when it is in
 * scope), never through the shortcut.
 */
export const isDocument = (file: DriveFile) => file.mimeType !== FOLDER && file.mimeType !== SHORTCUT

export type FileEvent = Extract<SyncEvent, { type: 'upsert' | 'unchanged' | 'failure' | 'delete' }>

const versionOf = (file: DriveFile) => `${file.version ?? ''}:${file.modifiedTime ?? ''}`

/** A Google error as the run's failure text: Google's reason when it gave one. */
function describe(error: unknown): string {
	const reason = reasonOf(error)
	const status = statusOf(error)
	const message = (error as Error).message
	return `${status ? `Google answered ${status}` : 'reading failed'}${reason ? ` (${reason})` : ''}: ${message}`
}

/**
 * One file as a sync event: an export (Docs as Markdown, Sheets as xlsx, Slides as text) or a download of the
 * bytes, which the service's file ingestion reads; unchanged versions are not read again; too large: skipped.
 */
export async function readFile(
	api: DriveApi,
	ctx: Pick<SyncContext, 'hasVersion' | 'signal' | 'logger'>,
	file: DriveFile,
	limits: { maxFileBytes: number },
): Promise<FileEvent> {
	const id = file.id!
	const version = versionOf(file)
	if (await ctx.hasVersion(id, version)) return { type: 'unchanged', externalId: id }
	const mimeType = file.mimeType ?? 'application/octet-stream'
	// Google would refuse the download or export on every run: skipped, as a file over the size limit is.
	if (file.capabilities?.canDownload === false) {
		ctx.logger.info('a Drive file its owner does not let readers download was skipped', { fileId: id })
		return { type: 'unchanged', externalId: id }
	}
	if (mimeType.startsWith(GOOGLE_APPS) && !EXPORTS[mimeType]) {
		ctx.logger.info('a Google file kind with no text or file export was skipped', { fileId: id, mimeType })
		return { type: 'unchanged', externalId: id }
	}
	const base: Omit<ExternalDocument, 'content' | 'file'> = {
		externalId: id,
		version,
		title: file.name ?? null,
		url: file.webViewLink ?? null,
		metadata: {
			fileId: id,
			mimeType,
			...(file.modifiedTime ? { modifiedTime: file.modifiedTime } : {}),
			...(file.driveId ? { driveId: file.driveId } : {}),
		},
	}
	if (mimeType.startsWith(GOOGLE_APPS)) {
		const kind = EXPORTS[mimeType]!
		let bytes: Uint8Array
		try {
			const { data } = await api.call(() =>
				api.drive.files.export(
					{ fileId: id, mimeType: kind.mimeType },
					{ responseType: 'arraybuffer', signal: ctx.signal },
				),
			)
			bytes = new Uint8Array(data as ArrayBuffer)
		} catch (error) {
			if (endsRun(error)) throw error
			if (statusOf(error) === 404) return { type: 'delete', externalId: id }
			if (reasonOf(error) === 'exportSizeLimitExceeded') {
				return { type: 'failure', externalId: id, error: "the export is over Google's 10 MB limit", retry: 'permanent' }
			}
			return { type: 'failure', externalId: id, error: describe(error) }
		}
		if (bytes.length > MAX_EXPORT_BYTES) {
			return { type: 'failure', externalId: id, error: `the export is ${bytes.length} bytes, over the 10 MB limit` }
		}
		const document: ExternalDocument =
			kind.as === 'text'
				? { ...base, content: new TextDecoder().decode(bytes), sourceType: kind.sourceType }
				: {
						...base,
						file: { bytes, name: `${file.name ?? id}.${kind.extension}`, mimeType: kind.mimeType },
						sourceType: kind.sourceType,
					}
		return { type: 'upsert', document }
	}
	const size = Number(file.size ?? 0)
	if (size > limits.maxFileBytes) {
		ctx.logger.info('a Drive file over the size limit was skipped', { fileId: id, size })
		return { type: 'unchanged', externalId: id }
	}
	let bytes: Uint8Array
	try {
		const { data } = await api.call(() =>
			api.drive.files.get(
				{ fileId: id, alt: 'media', supportsAllDrives: true },
				{ responseType: 'arraybuffer', signal: ctx.signal },
			),
		)
		bytes = new Uint8Array(data as ArrayBuffer)
	} catch (error) {
		if (endsRun(error)) throw error
		// Deleted (or unshared) since it was listed.
		if (statusOf(error) === 404) return { type: 'delete', externalId: id }
		return { type: 'failure', externalId: id, error: describe(error) }
	}
	return {
		type: 'upsert',
		document: { ...base, file: { bytes, name: file.name ?? id, mimeType }, sourceType: 'google_drive_file' },
	}
}
