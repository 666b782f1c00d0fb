import type { drive_v3 } from 'googleapis/build/src/apis/drive/index.js'
import type { SyncContext } from '../../core/index.ts'
import { type GoogleCalls, googleApiOptions, googleCalls } from '../google/index.ts'
import { DRIVE_SCOPE } from './options.ts'

export type Drive = drive_v3.Drive
export type DriveFile = drive_v3.Schema$File

/** Drive v3 for one connection, and `call`, which every request goes through (token, 401 refresh, retries). */
export interface DriveApi {
	drive: Drive
	call: GoogleCalls<unknown>['call']
}

/** googleapis's Drive module is loaded on first use only. */
export async function driveFor(
	ctx: Pick<SyncContext, 'withToken' | 'connectionId' | 'signal'>,
	apiUrl: string | undefined,
): Promise<DriveApi> {
	const { drive, auth } = await import('googleapis/build/src/apis/drive/index.js')
	const calls = googleCalls(auth.OAuth2, ctx, DRIVE_SCOPE)
	return { drive: drive({ version: 'v3', ...googleApiOptions(calls, apiUrl) }), call: calls.call }
}

/** Every shared drive the account is a member of (drives.list pages by 100 at most). */
export async function sharedDrives(
	api: DriveApi,
	signal?: AbortSignal,
): Promise<{ id: string; name: string | null | undefined }[]> {
	const found: { id: string; name: string | null | undefined }[] = []
	let pageToken: string | undefined
	do {
		const { data } = await api.call(() =>
			api.drive.drives.list(
				{ pageSize: 100, fields: 'nextPageToken,drives(id,name)', ...(pageToken ? { pageToken } : {}) },
				signal ? { signal } : {},
			),
		)
		for (const shared of data.drives ?? []) if (shared.id) found.push({ id: shared.id, name: shared.name })
		pageToken = data.nextPageToken ?? undefined
	} while (pageToken)
	return found
}
