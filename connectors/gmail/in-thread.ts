import { ownText } from './body.ts'
import { type DecodedMessage, decodeMessage, UnreadableMessageError } from './mime.ts'

export interface ReadMessage {
	decoded: DecodedMessage
	/** The message's own words (quoted replies removed). */
	body: string
}

/**
 * Runs in a worker thread (core's `runIsolated`): MIME decoding, HTML reading and reply parsing of a thread's
 * messages are CPU-bound, and a hostile message must not stall the service's requests.
 */
export async function readMessages(raws: { id: string; raw: Uint8Array }[]): Promise<ReadMessage[]> {
	const read: ReadMessage[] = []
	for (const { id, raw } of raws) {
		let decoded: DecodedMessage
		try {
			decoded = await decodeMessage(raw)
		} catch (error) {
			if (error instanceof UnreadableMessageError) throw new UnreadableMessageError(`message ${id}: ${error.message}`)
			throw error
		}
		read.push({ decoded, body: await ownText(decoded) })
	}
	return read
}
