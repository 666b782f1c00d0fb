import type { BenchClient } from './http.ts'
import type { Conversation, Session } from './locomo-data.ts'
import { turnLine } from './locomo-data.ts'
import type { MemorySource } from './memory-sources.ts'
import { chunkItem, type WalkItem, wordCount } from './retrieval.ts'

/** Maps what a search returns (chunks by id or position, memories by source) back to LoCoMo turns and sessions. */
export class ConversationIndex {
	readonly containerTag: string
	readonly sessionByDocument = new Map<string, Session>()
	readonly byChunkId = new Map<string, WalkItem>()
	readonly byPosition = new Map<string, WalkItem>()
	unmappedTurns = 0

	constructor(
		readonly conversation: Conversation,
		readonly shape: SessionShape = 'transcript',
	) {
		this.containerTag = shape === 'transcript' ? `locomo-${conversation.id}` : `locomo-json-${conversation.id}`
	}

	/** A chunk of a known document (v3 results carry documentId and position). */
	chunkAt(documentId: string, position: number, content: string): WalkItem {
		const known = this.byPosition.get(`${documentId}:${position}`)
		if (known) return known
		const session = this.sessionByDocument.get(documentId)
		return session ? chunkItem(content, session.turns, session.number) : this.unknown(content)
	}

	/** A chunk by its id (v4 chunk results); located by text when the id is not one listed after ingest. */
	chunkById(id: string, content: string): WalkItem {
		const known = this.byChunkId.get(id)
		if (known) return known
		for (const session of this.conversation.sessions) {
			const item = chunkItem(content, session.turns, session.number)
			if (item.turns.length > 0) return item
		}
		return this.unknown(content)
	}

	/**
	 * A memory result: its sessions from its source documents (include.documents), its turns from the turn indexes
	 * of each source: `documents[].turns` once search results carry them, else `stored` (read from the store after
	 * the run). The whole memory text must fit in the budget for its turns to count.
	 */
	memoryItem(result: any, stored: MemorySource[] = []): WalkItem {
		const words = wordCount(String(result.memory ?? ''))
		const reported = ((result.documents ?? []) as any[]).map((d) => ({
			documentId: String(d.id),
			turns: (d.turns ?? []) as number[],
		}))
		const sources = reported.some((source) => source.turns.length > 0) ? reported : [...reported, ...stored]
		const sessions: number[] = []
		const turns: WalkItem['turns'] = []
		for (const source of sources) {
			const session = this.sessionByDocument.get(source.documentId)
			if (!session) continue
			if (!sessions.includes(session.number)) sessions.push(session.number)
			for (const index of source.turns) {
				const turn = session.turns[index]
				if (turn) turns.push({ diaId: turn.diaId, endWord: words })
			}
		}
		return { words, turns, sessions }
	}

	private unknown(content: string): WalkItem {
		return { words: wordCount(content), turns: [], sessions: [] }
	}
}

/** Waits until every document of the index has its memories formed (dynamic dreaming). */
export async function waitForMemories(client: BenchClient, index: ConversationIndex, timeoutMs = 600_000) {
	const deadline = performance.now() + timeoutMs
	for (const id of index.sessionByDocument.keys()) {
		for (;;) {
			const reply = await client.get(`/v3/documents/${id}`)
			if (reply.status === 200 && reply.body.dreamingStatus === 'done') break
			if (performance.now() > deadline) throw new Error(`memories of ${id} not formed after ${timeoutMs} ms`)
			await Bun.sleep(200)
		}
	}
}

async function waitForDocument(client: BenchClient, id: string, timeoutMs = 120_000): Promise<string> {
	const deadline = performance.now() + timeoutMs
	for (;;) {
		const reply = await client.get(`/v3/documents/${id}`)
		if (reply.status === 200 && (reply.body.status === 'done' || reply.body.status === 'failed'))
			return reply.body.status
		if (performance.now() > deadline) throw new Error(`document ${id} not processed after ${timeoutMs} ms`)
		await Bun.sleep(50)
	}
}

/**
 * How sessions are sent. `transcript`: `Speaker: text` lines with instant dreaming and the date in metadata.
 * `json-in-text`: as a third-party client written for the hosted API sends them, a preamble line with the date and
 * then the session as a JSON array of `{role, content, speaker}` messages, all in `content`, with the default
 * (dynamic) dreaming and no metadata date.
 */
export type SessionShape = 'transcript' | 'json-in-text'

function sessionDocument(conversation: Conversation, session: Session, shape: SessionShape) {
	const customId = `${conversation.id}-session-${session.number}`
	const metadata = { conversation: conversation.id, session: session.number }
	if (shape === 'json-in-text') {
		const messages = session.turns.map((turn, i) => ({
			role: i % 2 === 0 ? 'user' : 'assistant',
			content: turn.text,
			speaker: turn.speaker,
		}))
		const preamble = `Here is the date the following session took place: ${session.date ?? 'unknown'}`
		return { content: `${preamble}\n${JSON.stringify(messages)}`, customId, metadata }
	}
	return {
		content: session.turns.map(turnLine).join('\n'),
		customId,
		dreaming: 'instant',
		metadata: { ...metadata, ...(session.date ? { date: session.date } : {}) },
	}
}

/**
 * Ingests a conversation session by session (see SessionShape), waiting for each to be done before the next (memory
 * formation sees the sessions in order). Then reads back every chunk to know which turns it holds.
 */
export async function ingestConversation(
	client: BenchClient,
	conversation: Conversation,
	shape: SessionShape = 'transcript',
): Promise<ConversationIndex> {
	const index = new ConversationIndex(conversation, shape)
	for (const session of conversation.sessions) {
		const reply = await client.post('/v3/documents', {
			...sessionDocument(conversation, session, shape),
			containerTag: index.containerTag,
		})
		if (reply.status !== 200) throw new Error(`POST /v3/documents answered ${reply.status}`)
		const status = await waitForDocument(client, reply.body.id)
		if (status !== 'done') throw new Error(`session ${session.number} of ${conversation.id} ended ${status}`)
		index.sessionByDocument.set(reply.body.id, session)
	}
	for (const [documentId, session] of index.sessionByDocument) {
		const reply = await client.get(`/v3/documents/${documentId}/chunks`)
		const covered = new Set<string>()
		for (const chunk of reply.body.chunks as { id: string; position: number; content: string }[]) {
			const item = chunkItem(chunk.content, session.turns, session.number)
			index.byChunkId.set(chunk.id, item)
			index.byPosition.set(`${documentId}:${chunk.position}`, item)
			for (const turn of item.turns) covered.add(turn.diaId)
		}
		index.unmappedTurns += session.turns.filter((turn) => !covered.has(turn.diaId)).length
	}
	return index
}
