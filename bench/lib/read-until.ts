/**
 * Reads a spawned server's output until `pattern` matches, returns its first group, and drains the rest so the
 * server never blocks on a full pipe.
 */
export async function readUntil(stream: ReadableStream<Uint8Array>, pattern: RegExp): Promise<string> {
	const reader = stream.getReader()
	let text = ''
	for (;;) {
		const { value, done } = await reader.read()
		if (done) throw new Error(`the server's output ended before ${pattern}: ${text.slice(-2000)}`)
		text += new TextDecoder().decode(value)
		const match = pattern.exec(text)
		if (match) {
			reader.releaseLock()
			void stream.pipeTo(new WritableStream())
			return match[1]!
		}
	}
}
