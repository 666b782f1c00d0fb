import type { ExtractionInput, MemoryCandidate } from '../../core/index.ts'
import { loadAnalyser } from './nlp.ts'
import { extractStatements, type StatementOptions } from './statements.ts'

/** Runs in a worker thread (runIsolated): loads the English model there once. */
export function warm(): void {
	loadAnalyser()
}

/** Runs in a worker thread (runIsolated): the extraction itself, CPU-bound from start to end. */
export function extractInThread(input: ExtractionInput, options: StatementOptions): MemoryCandidate[] {
	return extractStatements(input, loadAnalyser(), options)
}
