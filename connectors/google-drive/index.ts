import { defineConnector, PLUGIN_API_VERSION } from '../../core/index.ts'
import { googleOAuth } from '../google/index.ts'
import {
	CHANNEL_LIFETIME_MS,
	DEFAULT_SETTINGS,
	DRIVE_SCOPE,
	type GoogleDriveCursor,
	type GoogleDriveOptions,
	type GoogleDriveSettings,
	MAX_FILE_BYTES,
} from './options.ts'
import { readDriveItem } from './read-item.ts'
import { configureFolders, listFolders } from './resources.ts'
import { syncDrive } from './sync.ts'
import { driveWebhook } from './webhook.ts'

export type { GoogleDriveOptions, GoogleDriveSettings } from './options.ts'

/** Google Drive: Docs, Sheets and Slides exported, other files through file ingestion, kept in step by the changes feed. */
export function googleDrive(options: GoogleDriveOptions = {}) {
	const maxFileBytes = options.maxFileBytes ?? MAX_FILE_BYTES
	return defineConnector<GoogleDriveCursor, GoogleDriveSettings>({
		apiVersion: PLUGIN_API_VERSION,
		kind: 'connector',
		name: 'google-drive',
		provider: 'google-drive',
		displayName: 'Google Drive',
		auth: googleOAuth({ ...options, scopes: [DRIVE_SCOPE], settingsKey: 'googleDrive' }),
		schedule: { everyHours: 4 },
		defaultSettings: DEFAULT_SETTINGS,
		resources: {
			list: (ctx, query) => listFolders(options.apiUrl, ctx, query),
			configure: (ctx, resources) => configureFolders(options.apiUrl, ctx, resources),
		},
		webhook: driveWebhook(options.apiUrl, options.channelLifetimeMs ?? CHANNEL_LIFETIME_MS),
		sync: (ctx, cursor) => syncDrive(ctx, cursor, { apiUrl: options.apiUrl, maxFileBytes }),
		readItem: (ctx, externalId) => readDriveItem(ctx, externalId, { apiUrl: options.apiUrl, maxFileBytes }),
	})
}
