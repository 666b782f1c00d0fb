import type { DrillProcess } from './service.ts'
import { settle } from './service.ts'

export interface CrashResult {
	sent: number
	done: number
	lost: number
	duplicated: number
	detail: string
}

interface Stage {
	/** After this many acknowledged documents... */
	after: number
	/** ...this happens (kill -9 and restart of a process). */
	run: () => Promise<void>
	label: string
}

/**
 * Sends `count` documents (each with a customId, resent until acknowledged, as a client that retries does) while the
 * stages kill -9 and restart processes; then every document must be done exactly once.
 */
export async function ingestThroughCrashes(
	api: () => DrillProcess,
	key: string,
	count: number,
	stages: Stage[],
	tag: string,
): Promise<CrashResult> {
	const ids = new Map<string, string>()
	const send = async (i: number) => {
		for (let attempt = 0; attempt < 200; attempt++) {
			const response = await fetch(`${api().url}/v3/documents`, {
				method: 'POST',
				headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
				body: JSON.stringify({
					content: `Crash drill note ${i}: the ferry to island ${i} leaves at ${i % 24}:00 from pier ${i % 7}.`,
					customId: `crash-${i}`,
					containerTag: tag,
				}),
				signal: AbortSignal.timeout(10_000),
			}).catch(() => null)
			if (response?.status === 200) {
				ids.set(`crash-${i}`, ((await response.json()) as { id: string }).id)
				return
			}
			await Bun.sleep(250)
		}
	}
	let next = 0
	const pending = [...stages].sort((a, b) => a.after - b.after)
	while (next < count) {
		const batch = Array.from({ length: Math.min(4, count - next) }, (_, j) => next + j)
		await Promise.all(batch.map(send))
		next += batch.length
		while (pending[0] && ids.size >= pending[0].after) await pending.shift()!.run()
	}
	let done = 0
	for (const id of ids.values()) if ((await settle(api().url, key, id, 180_000)) === 'done') done++
	const listed = await fetch(`${api().url}/v3/documents/list`, {
		method: 'POST',
		headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
		body: JSON.stringify({ containerTags: [tag], limit: 100, page: 1 }),
	})
	const listing = (await listed.json()) as { pagination: { totalItems: number } }
	const total = listing.pagination.totalItems
	return {
		sent: count,
		done,
		lost: count - Math.min(total, count),
		duplicated: Math.max(0, total - count),
		detail: stages.map((s) => s.label).join(', '),
	}
}
