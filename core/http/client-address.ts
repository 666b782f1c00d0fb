/** What the HTTP server tells of a request's socket (Bun's `server.requestIP`). */
interface PeerLookup {
	requestIP(request: Request): { address: string } | null
}

/** Source addresses of requests, kept for the request objects the app's guards put in the original's place. */
const addresses = new WeakMap<Request, string>()

/**
 * Remembers the address `original` came from (the socket's peer; behind a reverse proxy, the proxy's) under
 * `replacement`. Bun knows it only for the request object it made itself.
 */
export function rememberAddress(server: PeerLookup | null, original: Request, replacement: Request): void {
	const address = server?.requestIP(original)?.address
	if (address) addresses.set(replacement, address)
}

/** The address a request came from; `unknown` when it did not arrive through a socket (`app.handle`). */
export const clientAddress = (request: Request): string => addresses.get(request) ?? 'unknown'
