import type { ExtractionInput, ExtractorPlugin, MemoryCandidate } from '../../core/index.ts'
import { PLUGIN_API_VERSION, runIsolated } from '../../core/index.ts'

export interface ExtractorRulesOptions {
	/** Also take statements from assistant, system and tool turns. Default false: memories are about people. */
	includeAssistantTurns?: boolean
	/**
	 * Longest statement made by joining a sentence that points back ("It was so powerful.") to the one before it.
	 * Default 300 characters; longer ones stay apart.
	 */
	maxJoinedChars?: number
}

const IN_THREAD = new URL('./in-thread.ts', import.meta.url).href

/**
 * The offline default extractor: content to atomic, self-contained, third-person memory statements with rules over
 * wink-nlp's sentence splitting, part-of-speech tags, lemmas and named entities. The work is CPU-bound, so it runs
 * in a worker thread (core's `runIsolated`), where the English model is loaded once, in `init()` (or on first use);
 * the document's time budget (`input.signal`) ends the thread.
 */
export function extractorRules(options: ExtractorRulesOptions = {}): ExtractorPlugin {
	const statementOptions = {
		includeAssistantTurns: options.includeAssistantTurns ?? false,
		maxJoinedChars: options.maxJoinedChars ?? 300,
	}
	return {
		apiVersion: PLUGIN_API_VERSION,
		kind: 'extractor',
		name: 'extractor-rules',
		async init() {
			await runIsolated(IN_THREAD, 'warm', [], {})
		},
		async extract({ signal, ...input }: ExtractionInput): Promise<MemoryCandidate[]> {
			return runIsolated(IN_THREAD, 'extractInThread', [input, statementOptions], signal ? { signal } : {})
		},
	}
}
