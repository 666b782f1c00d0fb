/**
 * The entry of an isolated-task worker thread: runs an exported function of a module and posts back its result.
 * A StageError keeps its user-facing message and its permanence across the thread boundary.
 */
import { StageError } from '../errors.ts'
import type { TaskReply, TaskRequest } from './isolated-task.ts'

declare const self: Worker

self.onmessage = async (event: MessageEvent<TaskRequest>) => {
	const { id, module, name, args } = event.data
	let reply: TaskReply
	try {
		const loaded = (await import(module)) as Record<string, (...args: unknown[]) => unknown>
		const run = loaded[name]
		if (typeof run !== 'function') throw new Error(`${module} exports no function ${name}`)
		reply = { id, ok: true, result: await run(...args) }
	} catch (error) {
		reply = {
			id,
			ok: false,
			error: {
				name: error instanceof Error ? error.name : 'Error',
				message: error instanceof Error ? error.message : String(error),
				stage: error instanceof StageError,
				permanent: error instanceof StageError && error.permanent,
			},
		}
	}
	self.postMessage(reply)
}
