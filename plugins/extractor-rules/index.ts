import type { ExtractionInput, ExtractorPlugin, MemoryCandidate } from '../../core/index.ts'
import { PLUGIN_API_VERSION } from '../../core/index.ts'
import { type Analyser, loadAnalyser } from './nlp.ts'
import { extractStatements } from './statements.ts'

export interface ExtractorRulesOptions {
	/** Also take statements from assistant, system and tool turns. Default false: memories are about people. */
	includeAssistantTurns?: boolean
	/**
	 * Longest statement made by joining a sentence that points back ("It was so powerful.") to the one before it.
	 * Default 300 characters; longer ones stay apart.
	 */
	maxJoinedChars?: number
}

/**
 * The offline default extractor: content to atomic, self-contained, third-person memory statements with rules over
 * wink-nlp's sentence splitting, part-of-speech tags, lemmas and named entities. The English model is loaded once,
 * in `init()` (or on first use).
 */
export function extractorRules(options: ExtractorRulesOptions = {}): ExtractorPlugin {
	const statementOptions = {
		includeAssistantTurns: options.includeAssistantTurns ?? false,
		maxJoinedChars: options.maxJoinedChars ?? 300,
	}
	let analyse: Analyser | null = null
	const analyser = () => {
		analyse ??= loadAnalyser()
		return analyse
	}
	return {
		apiVersion: PLUGIN_API_VERSION,
		kind: 'extractor',
		name: 'extractor-rules',
		init() {
			analyser()
		},
		async extract(input: ExtractionInput): Promise<MemoryCandidate[]> {
			return extractStatements(input, analyser(), statementOptions)
		},
	}
}
