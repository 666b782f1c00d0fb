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
