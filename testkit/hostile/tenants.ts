import { observe, type Send } from './send.ts'

export interface TenantResult {
	tried: number
	/** Answers to B that showed A's text or A's document ids. */
	leaks: number
	/** A's documents changed or gone after B's attempts. */
	tampered: number
	findings: string[]
}

const MARKER = 'Zebraquartz'
/** Only A's documents hold this; B never sends it, so an answer to B that holds it leaks. */
const SECRET = 'vault code of organization A'
const TAG = 'tenant_a_private'

/** A short random id shaped like the service's own ids (guessing, as an attacker would). */
const guessedId = () => crypto.randomUUID().replaceAll('-', '').slice(0, 22)

/**
 * Organization A stores documents under a tag; organization B then tries every route with A's ids, customIds and
 * tag and with guessed ids. B must see nothing of A, change nothing of A, and A must find its documents intact.
 */
export async function runTenantFuzz(
	asA: Send,
	asB: Send,
	waitDone: (id: string) => Promise<unknown>,
): Promise<TenantResult> {
	const result: TenantResult = { tried: 0, leaks: 0, tampered: 0, findings: [] }
	const documents: { id: string; customId: string; content: string }[] = []
	for (let i = 0; i < 3; i++) {
		const customId = `a-secret-${i}`
		const content = `${MARKER} ledger ${i}: the ${SECRET} is ${1000 + i}.`
		const response = await asA('POST', '/v3/documents', {
			body: JSON.stringify({ content, customId, containerTag: TAG }),
		})
		const { id } = (await response.json()) as { id: string }
		documents.push({ id, customId, content })
	}
	for (const document of documents) await waitDone(document.id)

	const ids = [...documents.flatMap((d) => [d.id, d.customId]), guessedId(), guessedId()]
	const json = (value: unknown) => JSON.stringify(value)
	const attempts: [string, string, string?][] = []
	for (const id of ids) {
		attempts.push(['GET', `/v3/documents/${id}`])
		attempts.push(['GET', `/v3/documents/${id}/chunks`])
		attempts.push(['GET', `/v3/documents/${id}/file-url`])
		attempts.push(['PATCH', `/v3/documents/${id}`, json({ content: 'overwritten by B' })])
		attempts.push(['DELETE', `/v3/documents/${id}`])
	}
	attempts.push(
		['POST', '/v3/documents/list', json({ containerTags: [TAG] })],
		['POST', '/v3/documents/list', json({})],
		['POST', '/v3/search', json({ q: MARKER, containerTags: [TAG] })],
		['POST', '/v3/search', json({ q: `${MARKER} vault code` })],
		['POST', '/v4/search', json({ q: MARKER, containerTag: TAG })],
		['POST', '/v4/search', json({ q: 'vault code', searchMode: 'hybrid' })],
		['POST', '/v4/memories/list', json({ containerTags: [TAG] })],
		['POST', '/v4/profile', json({ containerTag: TAG, q: MARKER })],
		['GET', `/v3/container-tags/${TAG}`],
		['PATCH', `/v3/container-tags/${TAG}`, json({ entityContext: 'hijacked' })],
		['POST', '/v3/container-tags/merge', json({ containerTags: [TAG], targetContainerTag: 'b_loot' })],
		['GET', '/v3/container-tags/list'],
		['DELETE', '/v3/documents/bulk', json({ ids: documents.map((d) => d.id) })],
		['DELETE', '/v3/documents/bulk', json({ containerTags: [TAG] })],
		['POST', '/v4/memories/forget-matching', json({ containerTag: TAG, query: MARKER })],
		['DELETE', `/v3/container-tags/${TAG}`],
		// Same customId and tag as A: must make B's own document, never overwrite A's.
		['POST', '/v3/documents', json({ content: 'B writes here', customId: documents[0]!.customId, containerTag: TAG })],
	)
	for (const [method, path, body] of attempts) {
		const seen = await observe(await asB(method, path, { body }))
		result.tried++
		const sent = `${path} ${body ?? ''}`
		const leaked =
			seen.text.includes(SECRET) ||
			(seen.status < 400 && documents.some((d) => seen.text.includes(d.id) && !sent.includes(d.id)))
		if (leaked) {
			result.leaks++
			result.findings.push(`${method} ${path} showed A's data: ${seen.text.slice(0, 160)}`)
		}
	}
	for (const document of documents) {
		const response = await asA('GET', `/v3/documents/${document.id}`)
		const body = (await response.json()) as { content?: string }
		if (response.status !== 200 || body.content !== document.content) {
			result.tampered++
			result.findings.push(
				`A's document ${document.id} changed: ${response.status} ${JSON.stringify(body).slice(0, 160)}`,
			)
		}
	}
	return result
}
