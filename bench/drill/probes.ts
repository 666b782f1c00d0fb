/**
 * Attacks from the security review that one request shows: a malformed Host, and a restricted key asking
 * /v3/search about another tag's document. Each returns a drill row.
 */
import { rawRequest } from '../../testkit/raw-http.ts'
import type { DrillRow } from './webhooks.ts'

export async function malformedHosts(url: string, store: string): Promise<DrillRow> {
	const statuses: string[] = []
	for (const host of ['a b', '', 'x@y', 'host:99999']) {
		const head = `POST /health HTTP/1.1\r\nHost: ${host}\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}`
		const answer = await rawRequest(url, head, null, 5_000)
		statuses.push(`${answer.status} ${answer.headers['content-type']?.split(';')[0] ?? 'none'}`)
	}
	return {
		tried: `${store}: POST with a malformed Host ("a b", "", "x@y", "host:99999")`,
		expected: '400 application/json, no error page',
		observed: [...new Set(statuses)].join(', '),
		ok: statuses.every((status) => status === '400 application/json'),
	}
}

/** `admin` makes a document in tag_b and a key restricted to tag_a, which asks /v3/search about it. */
export async function searchOracle(url: string, admin: string, store: string): Promise<DrillRow> {
	const call = async (path: string, body: unknown, key = admin) => {
		const response = await fetch(`${url}${path}`, {
			method: 'POST',
			headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
			body: JSON.stringify(body),
		})
		return { status: response.status, body: (await response.json()) as Record<string, any> }
	}
	const hidden = await call('/v3/documents', {
		content: 'Drill tag_b policy.',
		containerTag: 'drill_b',
		customId: 'drill-hidden',
	})
	const restricted = (await call('/v3/keys', { name: 'drill a', containerTags: ['drill_a'] })).body.key as string
	const answers = []
	for (const docId of [hidden.body.id, 'drill-hidden', 'drill-does-not-exist']) {
		const answer = await call('/v3/search', { q: 'policy', docId }, restricted)
		answers.push(`${answer.status}`)
	}
	return {
		tried: `${store}: restricted key, /v3/search {docId} of another tag's document (id, customId) and of none`,
		expected: '404, 404, 404',
		observed: answers.join(', '),
		ok: answers.every((status) => status === '404'),
	}
}
