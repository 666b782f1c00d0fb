import { connect } from 'node:net'

export interface RawResponse {
	status: number
	headers: Record<string, string>
	body: string
}

/** The head and body of an HTTP/1.1 response as bytes arrived (a leading `100 Continue` skipped). */
function parseResponse(text: string): RawResponse {
	let rest = text
	while (rest.startsWith('HTTP/1.1 100')) rest = rest.slice(rest.indexOf('\r\n\r\n') + 4)
	const end = rest.indexOf('\r\n\r\n')
	const [statusLine = '', ...lines] = rest.slice(0, end === -1 ? rest.length : end).split('\r\n')
	const headers: Record<string, string> = {}
	for (const line of lines) {
		const colon = line.indexOf(':')
		if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
	}
	return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body: end === -1 ? '' : rest.slice(end + 4) }
}

/**
 * Sends a request byte for byte over a socket (for what fetch will not send: chunked bodies of a chosen size, huge
 * heads, a length the body never reaches) and reads the answer until the server closes or `waitMs` passes.
 */
export function rawRequest(
	baseUrl: string,
	head: string,
	body: AsyncIterable<Uint8Array | string> | null = null,
	waitMs = 20_000,
): Promise<RawResponse> {
	const { hostname, port } = new URL(baseUrl)
	return new Promise((resolve) => {
		const chunks: Buffer[] = []
		const socket = connect({ host: hostname, port: Number(port) })
		const finish = () => {
			clearTimeout(timer)
			socket.destroy()
			resolve(parseResponse(Buffer.concat(chunks).toString('utf8')))
		}
		const timer = setTimeout(finish, waitMs)
		socket.on('data', (chunk: Buffer) => {
			chunks.push(chunk)
			const text = Buffer.concat(chunks).toString('utf8')
			const parsed = parseResponse(text)
			const length = Number(parsed.headers['content-length'] ?? Number.NaN)
			if (parsed.status >= 200 && Buffer.byteLength(parsed.body) >= length) finish()
		})
		socket.on('error', () => {})
		socket.on('close', finish)
		socket.on('connect', async () => {
			socket.write(head)
			if (!body) return
			try {
				for await (const piece of body) {
					if (socket.destroyed) return
					if (!socket.write(piece)) await new Promise((r) => socket.once('drain', r))
				}
			} catch {
				// The server may close mid-body after refusing it.
			}
		})
	})
}

/** A chunked body of `total` bytes of JSON (`{"content":"xxx..."}`) in 64 KiB chunks. */
export async function* chunkedJson(total: number): AsyncGenerator<string> {
	const open = '{"content":"'
	const close = '"}'
	const piece = 64 * 1024
	const frame = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`
	yield frame(open)
	for (let sent = open.length + close.length; sent < total; sent += piece) yield frame('x'.repeat(piece))
	yield frame(close)
	yield '0\r\n\r\n'
}
