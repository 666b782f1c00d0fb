import type { GoogleEndpointOptions } from '../google/index.ts'

export interface GoogleDriveOptions extends GoogleEndpointOptions {
	/** Files larger than this are skipped (counted as skipped, never downloaded). 50 MB. */
	maxFileBytes?: number
	/** Longest a watch channel is asked to live (Drive caps changes channels at a week). */
	channelLifetimeMs?: number
}

/** A chosen folder (or shared drive: its id names its root folder). */
export interface DriveFolder {
	id: string
	name: string
}

export interface GoogleDriveSettings {
	/** The folders whose descendants are synced; none: the whole Drive, shared drives included. */
	folders: DriveFolder[]
}

export interface GoogleDriveCursor {
	/** The changes feed's page token: every change after it is still to be read. */
	changesToken: string
	/** The folder selection the listing was made for; another one needs a new full listing. */
	scope: string
	/** False while the full listing is in progress (a resumed run lists again, skipping unchanged files). */
	listed: boolean
	/** When the last full listing ended (ms); chosen folders are listed again a day later, the whole Drive a week later. */
	listedAt: number
	[key: string]: string | boolean | number
}

export const DEFAULT_SETTINGS: GoogleDriveSettings = { folders: [] }

export const MAX_FILE_BYTES = 50 * 1024 * 1024
/** Google refuses larger exports (`exportSizeLimitExceeded`); anything larger that arrives is refused here too. */
export const MAX_EXPORT_BYTES = 10 * 1024 * 1024
export const CHANNEL_LIFETIME_MS = 7 * 24 * 3600_000

export const DRIVE_SCOPE = 'https://www.googleapis.com/auth/drive.readonly'

/** Every files.list and changes.list reaches shared drives too. */
export const ALL_DRIVES = { supportsAllDrives: true, includeItemsFromAllDrives: true } as const

export const FILE_FIELDS =
	'id,name,mimeType,parents,trashed,version,modifiedTime,size,webViewLink,driveId,capabilities/canDownload'
