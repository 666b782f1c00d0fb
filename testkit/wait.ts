/** Polls `probe` every 100 ms until it returns something truthy, and returns that; throws after `timeoutMs`. */
export async function waitFor<T>(probe: () => Promise<T | null | undefined | false>, timeoutMs = 20_000): Promise<T> {
	const until = Date.now() + timeoutMs
	for (;;) {
		const value = await probe()
		if (value) return value
		if (Date.now() > until) throw new Error('timed out')
		await Bun.sleep(100)
	}
}
