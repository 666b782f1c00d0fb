import { timingSafeEqual } from 'node:crypto'
import type { MetaStore } from '../plugins/storage.ts'

/** How long a file URL stays valid, as the published API promises. */
export const FILE_URL_LIFETIME_SECONDS = 24 * 60 * 60

const SECRET_META_KEY = 'files:url-signing-secret'

/**
 * The secret that signs file URLs: MEMORY_FILE_URL_SECRET when set, else one generated on first start and kept in
 * the store, so URLs stay valid across restarts and every process of one store signs alike.
 */
export async function fileUrlSecret(configured: string | null, meta: MetaStore): Promise<string> {
	if (configured) return configured
	const stored = await meta.get<string>(SECRET_META_KEY)
	if (typeof stored === 'string' && stored) return stored
	await meta.set(SECRET_META_KEY, Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url'))
	// Read back: when two processes start together, both use whichever write landed last.
	return (await meta.get<string>(SECRET_META_KEY)) as string
}

/** HMAC-SHA256 signatures binding a document, its current file and an expiry time. */
export function fileUrlSigner(secret: string) {
	const signature = (documentId: string, fileKey: string, expires: number) =>
		new Bun.CryptoHasher('sha256', secret).update(`${documentId}\n${fileKey}\n${expires}`).digest('base64url')
	return {
		sign(documentId: string, fileKey: string, expires: number): string {
			return signature(documentId, fileKey, expires)
		},
		/** True when the signature is this service's for that file and the expiry (seconds) has not passed. */
		verify(documentId: string, fileKey: string, expires: number, given: string, nowSeconds: number): boolean {
			if (!Number.isInteger(expires) || expires < nowSeconds) return false
			const expected = Buffer.from(signature(documentId, fileKey, expires))
			const actual = Buffer.from(given)
			return expected.length === actual.length && timingSafeEqual(expected, actual)
		},
	}
}
