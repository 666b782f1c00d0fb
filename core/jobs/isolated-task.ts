import { availableParallelism } from 'node:os'
import { PermanentStageError, StageError } from '../errors.ts'

/** A call of `name` exported by `module`, run in a worker thread. */
export interface TaskRequest {
	id: number
	module: string
	name: string
	args: unknown[]
}

export type TaskReply =
	| { id: number; ok: true; result: unknown }
	| { id: number; ok: false; error: { name: string; message: string; stage: boolean; permanent: boolean } }

export interface IsolationLimits {
	/** The task fails (its thread is ended) after this long; without it, only `signal` ends it. */
	timeoutMs?: number
	/** Ends the task as soon as this aborts (the document's time budget); its reason becomes the error. */
	signal?: AbortSignal
	/** The task fails (its thread is ended) when the process's resident memory grows past this many bytes. */
	maxRssBytes?: number
	/**
	 * Ends the thread once the task is done, so the memory its heap grew to goes back to the system: for large inputs
	 * (a thread kept for the next task holds it; chunking 50 MB of text left about 800 MB behind).
	 */
	endThread?: boolean
}

/** Worker threads per module: CPU-heavy steps run beside the event loop, never more of them than cores. */
const THREADS = Math.max(1, Math.min(2, availableParallelism() - 1))
const RSS_CHECK_MS = 50

interface Thread {
	worker: Worker
	busy: boolean
}

interface Queued {
	request: Omit<TaskRequest, 'id'>
	limits: IsolationLimits
	resolve: (value: unknown) => void
	reject: (error: unknown) => void
}

class ThreadPool {
	private readonly threads: Thread[] = []
	private readonly queue: Queued[] = []
	private nextId = 1

	run(request: Omit<TaskRequest, 'id'>, limits: IsolationLimits): Promise<unknown> {
		return new Promise((resolve, reject) => {
			this.queue.push({ request, limits, resolve, reject })
			this.dispatch()
		})
	}

	close(): void {
		for (const thread of this.threads.splice(0)) thread.worker.terminate()
	}

	private dispatch(): void {
		while (this.queue.length > 0) {
			let thread = this.threads.find((candidate) => !candidate.busy)
			if (!thread && this.threads.length < THREADS) {
				thread = { worker: spawn(), busy: false }
				this.threads.push(thread)
			}
			if (!thread) return
			this.start(thread, this.queue.shift()!)
		}
	}

	private start(thread: Thread, task: Queued): void {
		const { signal, timeoutMs, maxRssBytes } = task.limits
		if (signal?.aborted) {
			task.reject(abortReason(signal))
			return
		}
		thread.busy = true
		thread.worker.ref()
		const id = this.nextId++
		let settled = false
		const finish = (outcome: () => void, ended: boolean) => {
			if (settled) return
			settled = true
			ended ||= task.limits.endThread === true
			clearTimeout(timer)
			clearInterval(watch)
			signal?.removeEventListener('abort', onAbort)
			thread.worker.removeEventListener('message', onMessage)
			thread.worker.removeEventListener('error', onError)
			if (ended) {
				// A thread stopped mid-task cannot be trusted with another: it is replaced on the next dispatch.
				thread.worker.terminate()
				this.threads.splice(this.threads.indexOf(thread), 1)
			} else {
				thread.busy = false
				thread.worker.unref()
			}
			outcome()
			this.dispatch()
		}
		const onMessage = (event: MessageEvent<TaskReply>) => {
			const reply = event.data
			if (reply.id !== id) return
			if (reply.ok) finish(() => task.resolve(reply.result), false)
			else finish(() => task.reject(revive(reply.error)), false)
		}
		const onError = (event: ErrorEvent) => finish(() => task.reject(new Error(event.message)), true)
		const onAbort = () => finish(() => task.reject(abortReason(signal!)), true)
		const timer =
			timeoutMs === undefined
				? undefined
				: setTimeout(
						() =>
							finish(
								() =>
									task.reject(new PermanentStageError(`processing took longer than ${Math.round(timeoutMs / 1000)} s`)),
								true,
							),
						timeoutMs,
					)
		const baseline = process.memoryUsage.rss()
		const watch = setInterval(() => {
			if (maxRssBytes === undefined || process.memoryUsage.rss() - baseline <= maxRssBytes) return
			finish(
				() =>
					task.reject(
						new PermanentStageError(
							`processing needed more than ${Math.round(maxRssBytes / 1024 / 1024)} MB of memory; the document is too large or too complex`,
						),
					),
				true,
			)
		}, RSS_CHECK_MS)
		signal?.addEventListener('abort', onAbort)
		thread.worker.addEventListener('message', onMessage)
		thread.worker.addEventListener('error', onError)
		thread.worker.postMessage({ id, ...task.request } satisfies TaskRequest)
	}
}

function spawn(): Worker {
	const worker = new Worker(new URL('./isolated-worker.ts', import.meta.url).href)
	worker.unref()
	return worker
}

function revive(error: { name: string; message: string; stage: boolean; permanent: boolean }): Error {
	if (error.stage) return error.permanent ? new PermanentStageError(error.message) : new StageError(error.message)
	const revived = new Error(error.message)
	revived.name = error.name
	return revived
}

function abortReason(signal: AbortSignal): unknown {
	return signal.reason instanceof StageError ? signal.reason : new PermanentStageError('processing was stopped')
}

const pools = new Map<string, ThreadPool>()

/**
 * Runs `name(...args)`, exported by the module at `module` (a file URL), in a worker thread, so CPU-heavy work (file
 * parsing, NLP) never blocks the event loop that serves HTTP and keeps job heartbeats. Arguments and the result are
 * copied between threads (structured clone). A task over its time or memory budget, or aborted, ends its thread
 * and fails with a permanent StageError; errors thrown by the function come back as they were thrown.
 */
export function runIsolated<T>(module: string, name: string, args: unknown[], limits: IsolationLimits): Promise<T> {
	let pool = pools.get(module)
	if (!pool) {
		pool = new ThreadPool()
		pools.set(module, pool)
	}
	return pool.run({ module, name, args }, limits) as Promise<T>
}

/** Ends every isolated-task thread (they are also unreferenced while idle, so they never keep a process alive). */
export function closeIsolatedTasks(): void {
	for (const pool of pools.values()) pool.close()
	pools.clear()
}
