type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown }

/**
 * `work` on up to `limit` items at once, results yielded in the items' order: whatever comes after a result (a
 * checkpoint) still follows everything before it. A failure is thrown when its turn comes, not before.
 */
export async function* inOrder<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): AsyncGenerator<R> {
	const settle = (item: T): Promise<Settled<R>> =>
		work(item).then(
			(value) => ({ ok: true, value }),
			(error: unknown) => ({ ok: false, error }),
		)
	const window: Promise<Settled<R>>[] = []
	let next = 0
	while (next < items.length && window.length < Math.max(1, limit)) window.push(settle(items[next++]!))
	while (window.length > 0) {
		const result = await window.shift()!
		if (next < items.length) window.push(settle(items[next++]!))
		if (!result.ok) throw result.error
		yield result.value
	}
}
