/**
 * Unauthenticated webhook floods: notifications naming many subscriptions, bodies at the size limit, several at once
 * and a burst from one address. Each answer's time and the slowest /health meanwhile (probed every 5 ms).
 */

export interface DrillRow {
	tried: string
	expected: string
	observed: string
	ok: boolean
}

const MiB = 1024 ** 2
/** The target: any webhook body up to the size limit answers within it, and /health never waits longer than HEALTH_MS. */
const ANSWER_MS = 100
const HEALTH_MS = 50
const REPEATS = 5

const oneDriveNaming = (count: number) =>
	JSON.stringify({
		value: Array.from({ length: count }, (_, i) => ({ subscriptionId: `s${i.toString(16)}`, clientState: 'x' })),
	})

/** Runs `attack` while /health is asked every 5 ms: the attack's result and the slowest /health answer. */
async function whileProbingHealth<T>(url: string, attack: () => Promise<T>): Promise<{ result: T; healthMax: number }> {
	let done = false
	let healthMax = 0
	const probes = (async () => {
		while (!done) {
			const started = performance.now()
			await fetch(`${url}/health`, { signal: AbortSignal.timeout(60_000) })
				.then((response) => response.arrayBuffer())
				.catch(() => {})
			healthMax = Math.max(healthMax, performance.now() - started)
			await Bun.sleep(5)
		}
	})()
	try {
		return { result: await attack(), healthMax }
	} finally {
		done = true
		await probes
	}
}

async function post(url: string, provider: string, body: string, headers: Record<string, string> = {}) {
	const started = performance.now()
	const response = await fetch(`${url}/v3/connections/webhooks/${provider}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...headers },
		body,
		signal: AbortSignal.timeout(120_000),
	}).catch(() => null)
	await response?.arrayBuffer()
	return { status: response?.status ?? 0, ms: performance.now() - started }
}

/** One attack repeated: the statuses seen, the slowest answer and the slowest /health. */
async function repeated(url: string, send: () => Promise<{ status: number; ms: number }[]>) {
	const statuses = new Set<number>()
	let slowest = 0
	let healthMax = 0
	for (let i = 0; i < REPEATS; i++) {
		await Bun.sleep(100)
		const { result, healthMax: health } = await whileProbingHealth(url, send)
		for (const answer of result) {
			statuses.add(answer.status)
			slowest = Math.max(slowest, answer.ms)
		}
		healthMax = Math.max(healthMax, health)
	}
	return { statuses: [...statuses].sort(), slowest, healthMax }
}

/** The webhook rows for a service at `url` whose body limit is `maxBodyBytes`; `store` names it in the rows. */
export async function webhookFloods(url: string, store: string, maxBodyBytes = 10 * MiB): Promise<DrillRow[]> {
	const rows: DrillRow[] = []
	const expected = `4xx in < ${ANSWER_MS} ms; /health < ${HEALTH_MS} ms`
	const add = (tried: string, outcome: Awaited<ReturnType<typeof repeated>>, wanted: (status: number) => boolean) => {
		rows.push({
			tried: `${store}: ${tried} (${REPEATS}×)`,
			expected,
			observed: `${outcome.statuses.join(', ')} in ≤ ${Math.round(outcome.slowest)} ms; /health max ${Math.round(outcome.healthMax)} ms`,
			ok: outcome.statuses.every(wanted) && outcome.slowest < ANSWER_MS && outcome.healthMax < HEALTH_MS,
		})
	}
	const is4xx = (status: number) => status >= 400 && status < 500
	// A service just started still loads its parsers and model in the background: the rows measure it settled.
	await Bun.sleep(3_000)
	await post(url, 'onedrive', oneDriveNaming(10))

	const parsed = oneDriveNaming(2_000)
	add(
		`OneDrive notification naming 2,000 subscriptions, ${(parsed.length / MiB).toFixed(2)} MB (read and parsed)`,
		await repeated(url, async () => [await post(url, 'onedrive', parsed)]),
		is4xx,
	)
	const within = oneDriveNaming(20_000)
	add(
		`OneDrive notification naming 20,000 subscriptions, ${(within.length / MiB).toFixed(2)} MB`,
		await repeated(url, async () => [await post(url, 'onedrive', within)]),
		is4xx,
	)
	const flood = oneDriveNaming(100_000)
	add(
		`OneDrive notification naming 100,000 subscriptions, ${(flood.length / MiB).toFixed(2)} MB`,
		await repeated(url, async () => [await post(url, 'onedrive', flood)]),
		is4xx,
	)
	add(
		'3 of those at once',
		await repeated(url, () => Promise.all([1, 2, 3].map(() => post(url, 'onedrive', flood)))),
		is4xx,
	)
	const limit = oneDriveNaming(Math.floor(maxBodyBytes / 46))
	add(
		`OneDrive notification at the body limit, ${(limit.length / MiB).toFixed(2)} MB`,
		await repeated(url, async () => [await post(url, 'onedrive', limit)]),
		is4xx,
	)
	const github = JSON.stringify({ ref: 'refs/heads/main', padding: 'x'.repeat(maxBodyBytes - 100) })
	add(
		`GitHub delivery at the body limit, unknown hook, forged signature`,
		await repeated(url, async () => [
			await post(url, 'github', github, {
				'x-github-hook-id': '1',
				'x-github-event': 'push',
				'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
			}),
		]),
		is4xx,
	)

	// Last: it spends this address's allowance.
	const burst: number[] = []
	const started = performance.now()
	const { healthMax } = await whileProbingHealth(url, async () => {
		for (let i = 0; i < 700; i++) burst.push((await post(url, 'notion', '{}')).status)
	})
	// The bucket holds 600 and refills 10 a second.
	const allowance = 600 + Math.ceil(((performance.now() - started) / 1000) * 10)
	const limited = burst.filter((status) => status === 429).length
	rows.push({
		tried: `${store}: 700 webhook requests from one address in a row`,
		expected: 'beyond the allowance (600 a minute) 429; /health unaffected',
		observed: `${burst.length - limited} answered, ${limited} × 429; /health max ${Math.round(healthMax)} ms`,
		ok: limited > 0 && burst.length - limited <= allowance && healthMax < HEALTH_MS,
	})
	return rows
}
