import type { gmail_v1 } from 'googleapis/build/src/apis/gmail'
import { ConnectorAuthError, type SyncContext } from '../../core/index.ts'
import { googleApiOptions, statusOf } from '../google/index.ts'

export type Gmail = gmail_v1.Gmail

/** googleapis' Gmail client (loaded on first use) on the connection's token, at `apiUrl` (unset: Gmail's own). */
export async function gmailClient(apiUrl: string | undefined, ctx: Pick<SyncContext, 'accessToken'>): Promise<Gmail> {
	const { gmail, auth } = await import('googleapis/build/src/apis/gmail')
	return gmail({ version: 'v1', ...googleApiOptions(auth.OAuth2, ctx, apiUrl), retry: false })
}

/** Google answers 401 to a revoked or expired grant: the connection then needs authorizing again. */
export async function guarded<T>(call: () => Promise<T>): Promise<T> {
	try {
		return await call()
	} catch (error) {
		if (statusOf(error) === 401) throw new ConnectorAuthError('Google refused the token (revoked or expired)')
		throw error
	}
}
