import { AsyncLocalStorage } from 'node:async_hooks'
import type { EmbedderPlugin } from '../plugins/contract.ts'

/**
 * Searches go ahead of background work. Jobs (document processing, memory formation, connector syncs, container
 * maintenance) run inside `inBackground`; searches run inside `inForeground`. A `BackgroundLane` admits background
 * operations (a database statement or transaction, an embedding batch) up to its budget, and to one at a time while
 * searches are coming in, so a search waits behind at most one background operation instead of behind every queued
 * one. Work outside both (other requests, start-up) passes unhindered, and background work never stops entirely.
 */

interface BackgroundContext {
	/** True inside an admitted operation: what it runs (a transaction's statements) is already counted. */
	admitted: boolean
}

const context = new AsyncLocalStorage<BackgroundContext>()
const ADMITTED: BackgroundContext = Object.freeze({ admitted: true })
let foregroundInFlight = 0
let lastForegroundEnd = Number.NEGATIVE_INFINITY
const onForegroundIdle = new Set<() => void>()

/**
 * How long after a search the lanes stay at one operation: a client searching again a moment later would otherwise
 * find the full budget started in the gap and share the processor with all of it (bench/README, search during a sync).
 */
export const SEARCH_GRACE_MS = 250

/** True while a search runs or ran within the grace. */
export function searchesComing(): boolean {
	return foregroundInFlight > 0 || performance.now() - lastForegroundEnd < SEARCH_GRACE_MS
}

let graceWake: ReturnType<typeof setTimeout> | undefined

/** Wakes the lanes once the grace after the last search has passed (one timer however many searches end). */
function wakeAfterGrace(delay = SEARCH_GRACE_MS + 1) {
	if (graceWake) return
	graceWake = setTimeout(() => {
		graceWake = undefined
		// A search running now arms the wake again when it ends.
		if (foregroundInFlight > 0) return
		const left = lastForegroundEnd + SEARCH_GRACE_MS - performance.now()
		if (left > 0) wakeAfterGrace(left + 1)
		else for (const wake of [...onForegroundIdle]) wake()
	}, delay)
	graceWake.unref()
}

/** Runs `fn` as background work: the lanes it passes through admit it by their budget. */
export function inBackground<T>(fn: () => Promise<T>): Promise<T> {
	// Already background (and maybe admitted, holding a slot its own work must not wait behind): unchanged.
	if (context.getStore()) return fn()
	return context.run({ admitted: false }, fn)
}

/** Runs `fn` as foreground work (a search): while it runs and for a grace after, lanes admit one at a time. */
export async function inForeground<T>(fn: () => Promise<T>): Promise<T> {
	// Work a background job starts itself (a formation's neighbour search) stays background.
	if (context.getStore()) return fn()
	foregroundInFlight++
	try {
		return await fn()
	} finally {
		foregroundInFlight--
		if (foregroundInFlight === 0) {
			lastForegroundEnd = performance.now()
			wakeAfterGrace()
		}
	}
}

/** True inside background work. */
export function isBackgroundWork(): boolean {
	return context.getStore() !== undefined
}

/** How many foreground operations are running now. */
export function foregroundCount(): number {
	return foregroundInFlight
}

/** `fn` run as foreground work on every call. */
export function foregroundFn<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
	return (...args) => inForeground(() => fn(...args))
}

/** Wraps each async method of `service` in `inForeground`. */
export function foreground<T extends Record<string, (...args: never[]) => Promise<unknown>>>(service: T): T {
	const wrapped: Record<string, unknown> = {}
	for (const [name, method] of Object.entries(service)) {
		wrapped[name] = (...args: never[]) => inForeground(() => method(...args))
	}
	return wrapped as T
}

export class BackgroundLane {
	private active = 0
	private readonly waiting: (() => void)[] = []
	private readonly wake = () => this.admitWaiting()

	/** `budget`: background operations at once while no search runs. */
	constructor(readonly budget: number) {
		if (!Number.isInteger(budget) || budget < 1)
			throw new Error(`a lane's budget is a whole number from 1, not ${budget}`)
	}

	/** Background operations running now. */
	get running(): number {
		return this.active
	}

	/** Background operations waiting for admission now. */
	get queued(): number {
		return this.waiting.length
	}

	/** Runs `fn` now if it is not background work; otherwise once the lane admits it. */
	run<T>(fn: () => Promise<T>): Promise<T> {
		const store = context.getStore()
		if (!store || store.admitted) return fn()
		return this.admit(fn)
	}

	private async admit<T>(fn: () => Promise<T>): Promise<T> {
		// While searches come in, an operation waits its turn even in an empty lane: a job running its operations one
		// after another (a formation's transactions) would otherwise chain them on the microtask queue, and a search
		// that arrived meanwhile is read only after the last of them.
		if (!searchesComing() && this.waiting.length === 0 && this.active < this.budget) this.active++
		else {
			// The slot is taken on the waiter's behalf when it is admitted (see admitWaiting).
			await new Promise<void>((resolve) => {
				this.waiting.push(resolve)
				onForegroundIdle.add(this.wake)
				this.admitWaiting()
			})
		}
		try {
			return await context.run(ADMITTED, fn)
		} finally {
			this.active--
			this.admitWaiting()
		}
	}

	private limit(): number {
		return searchesComing() ? 1 : this.budget
	}

	private admitWaiting() {
		while (this.waiting.length > 0 && this.active < this.limit()) {
			this.active++
			// Resumed from the macrotask queue: the embedded database and a local embedder answer on the microtask
			// queue, so a chain of background operations resumed directly would never let a request in.
			setImmediate(this.waiting.shift()!)
		}
		if (this.waiting.length === 0) onForegroundIdle.delete(this.wake)
	}
}

/** `embedder` with its background batches admitted through `lane`; everything else is the plugin's own. */
export function laneEmbedder(embedder: EmbedderPlugin, lane: BackgroundLane): EmbedderPlugin {
	const gated = Object.create(embedder) as EmbedderPlugin
	gated.embed = (texts, purpose) => lane.run(() => embedder.embed(texts, purpose))
	return gated
}
