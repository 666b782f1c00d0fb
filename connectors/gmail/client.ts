import type { gmail_v1 } from 'googleapis/build/src/apis/gmail'
import { ConnectorAuthError } from '../../core/index.ts'

export type Gmail = gmail_v1.Gmail

/** googleapis' Gmail client (loaded on first use) on `rootUrl`, authorized with the connection's access token. */
export async function gmailClient(rootUrl: string, accessToken: string): Promise<Gmail> {
	const { gmail, auth } = await import('googleapis/build/src/apis/gmail')
	const client = new auth.OAuth2()
	client.setCredentials({ access_token: accessToken })
	return gmail({ version: 'v1', auth: client, rootUrl, retry: false })
}

/** The HTTP status of a googleapis (gaxios) error. */
export function statusOf(error: unknown): number | undefined {
	const e = error as { status?: unknown; code?: unknown; response?: { status?: unknown } } | null
	for (const value of [e?.status, e?.response?.status, e?.code]) {
		const status = Number(value)
		if (Number.isInteger(status) && status >= 100 && status < 600) return status
	}
	return undefined
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
