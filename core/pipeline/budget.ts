import { PermanentStageError } from '../errors.ts'
import type { IsolationLimits } from '../jobs/isolated-task.ts'

/** How long and how much memory one document's processing may take. */
export interface DocumentBudget {
	/** Per attempt: extraction, splitting, embedding and memory extraction together (MEMORY_DOCUMENT_TIMEOUT_SECONDS). */
	timeoutSeconds: number
	/** Growth of the process's resident memory a parser or extractor may cause (MEMORY_DOCUMENT_MAX_MEMORY_MB). */
	maxMemoryBytes: number
}

/**
 * Starts a document's budget: limits for isolated tasks, whose signal aborts (with the reason in the user's terms)
 * once the time is spent. `end` stops the clock.
 */
export function startBudget(budget: DocumentBudget | undefined): { limits: IsolationLimits; end(): void } {
	if (!budget) return { limits: {}, end() {} }
	const controller = new AbortController()
	const timer = setTimeout(
		() =>
			controller.abort(
				new PermanentStageError(
					`processing took longer than the ${budget.timeoutSeconds} s a document may take (MEMORY_DOCUMENT_TIMEOUT_SECONDS)`,
				),
			),
		budget.timeoutSeconds * 1000,
	)
	timer.unref?.()
	return {
		limits: { signal: controller.signal, maxRssBytes: budget.maxMemoryBytes },
		end: () => clearTimeout(timer),
	}
}
