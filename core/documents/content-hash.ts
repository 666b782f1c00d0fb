/** The hash that tells whether a document's content changed. */
export function contentHash(content: string): string {
	return new Bun.CryptoHasher('sha256').update(content).digest('hex')
}
