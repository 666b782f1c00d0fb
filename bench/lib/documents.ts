import type { BenchClient } from './http.ts'

export interface DocumentState {
	id: string
	status: string
	/** `dreaming` while the document's memories wait for its container's dreaming batch. */
	dreamingStatus: string
	createdAt: string
	updatedAt: string
}

/** Every document of a container, through POST /v3/documents/list (pages of 1,000). */
export async function listDocuments(client: BenchClient, containerTag: string): Promise<DocumentState[]> {
	const documents: DocumentState[] = []
	for (let page = 1; ; page++) {
		const reply = await client.post('/v3/documents/list', { containerTags: [containerTag], limit: 1000, page })
		if (reply.status !== 200) throw new Error(`document list answered ${reply.status}`)
		documents.push(...(reply.body.memories as DocumentState[]))
		if (page >= reply.body.pagination.totalPages) return documents
	}
}

/**
 * Waits until nothing of the organization is left in the pipeline (GET /v3/documents/processing, a light poll every
 * 250 ms), then returns the container's documents; throws after `timeoutMs`.
 */
export async function waitUntilProcessed(
	client: BenchClient,
	containerTag: string,
	expected: number,
	timeoutMs: number,
): Promise<DocumentState[]> {
	const deadline = performance.now() + timeoutMs
	for (;;) {
		const reply = await client.get('/v3/documents/processing')
		if (reply.status === 200 && reply.body.totalCount === 0) {
			const documents = await listDocuments(client, containerTag)
			if (documents.length >= expected) return documents
		}
		if (performance.now() > deadline) {
			throw new Error(`${containerTag}: documents still processing after ${timeoutMs} ms`)
		}
		await Bun.sleep(250)
	}
}

/**
 * Waits until every document of the containers has its memories formed (dreamingStatus no longer `dreaming`, a
 * poll every 250 ms), then returns them; throws after `timeoutMs`.
 */
export async function waitUntilDreamed(
	client: BenchClient,
	containerTags: string[],
	timeoutMs: number,
): Promise<DocumentState[]> {
	const deadline = performance.now() + timeoutMs
	for (;;) {
		const documents = (await Promise.all(containerTags.map((tag) => listDocuments(client, tag)))).flat()
		if (documents.every((d) => d.status === 'failed' || (d.status === 'done' && d.dreamingStatus !== 'dreaming'))) {
			return documents
		}
		if (performance.now() > deadline) throw new Error(`memories still forming after ${timeoutMs} ms`)
		await Bun.sleep(250)
	}
}
