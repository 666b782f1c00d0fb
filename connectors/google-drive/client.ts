import type { drive_v3 } from 'googleapis/build/src/apis/drive/index.js'
import type { SyncContext } from '../../core/index.ts'
import { googleApiOptions } from '../google/index.ts'

export type Drive = drive_v3.Drive
export type DriveFile = drive_v3.Schema$File

/** Drive v3 on the connection's token; googleapis's Drive module is loaded on first use only. */
export async function driveFor(ctx: Pick<SyncContext, 'accessToken'>, apiUrl: string | undefined): Promise<Drive> {
	const { drive, auth } = await import('googleapis/build/src/apis/drive/index.js')
	return drive({ version: 'v3', ...googleApiOptions(auth.OAuth2, ctx, apiUrl) })
}

/** Every shared drive the account is a member of (drives.list pages by 100 at most). */
export async function sharedDrives(
	drive: Drive,
	signal?: AbortSignal,
): Promise<{ id: string; name: string | null | undefined }[]> {
	const found: { id: string; name: string | null | undefined }[] = []
	let pageToken: string | undefined
	do {
		const { data } = await drive.drives.list(
			{ pageSize: 100, fields: 'nextPageToken,drives(id,name)', ...(pageToken ? { pageToken } : {}) },
			signal ? { signal } : {},
		)
		for (const shared of data.drives ?? []) if (shared.id) found.push({ id: shared.id, name: shared.name })
		pageToken = data.nextPageToken ?? undefined
	} while (pageToken)
	return found
}
