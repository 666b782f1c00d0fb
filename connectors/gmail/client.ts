import type { gmail_v1 } from 'googleapis/build/src/apis/gmail'
import type { SyncContext } from '../../core/index.ts'
import { type GoogleCalls, googleApiOptions, googleCalls } from '../google/index.ts'
import { GMAIL_SCOPE } from './options.ts'

export type Gmail = gmail_v1.Gmail

/** Gmail v1 for one connection, and `call`, which every request goes through (token, 401 refresh, retries). */
export interface GmailApi {
	gmail: Gmail
	call: GoogleCalls<unknown>['call']
}

/** googleapis' Gmail client (loaded on first use) at `apiUrl` (unset: Gmail's own). */
export async function gmailClient(
	apiUrl: string | undefined,
	ctx: Pick<SyncContext, 'withToken' | 'connectionId' | 'signal'>,
): Promise<GmailApi> {
	const { gmail, auth } = await import('googleapis/build/src/apis/gmail')
	const calls = googleCalls(auth.OAuth2, ctx, GMAIL_SCOPE)
	return { gmail: gmail({ version: 'v1', ...googleApiOptions(calls, apiUrl) }), call: calls.call }
}
