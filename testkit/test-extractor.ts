import type { ExtractionInput, ExtractorPlugin, MemoryCandidate } from '../core/index.ts'
import { PLUGIN_API_VERSION } from '../core/index.ts'

/** "<Subject> lives in|moved to|works as <value>": the only facts this extractor keys (subject + attribute). */
const FACTS: { pattern: RegExp; attribute: string }[] = [
	{
		pattern: /^(?<subject>[A-Z][\w ]*?) (?:lives|now lives|moved) (?:in|to) (?<value>.+?)\.?$/,
		attribute: 'residence',
	},
	{ pattern: /^(?<subject>[A-Z][\w ]*?) (?:works|now works) as (?:an? )?(?<value>.+?)\.?$/, attribute: 'job' },
]
/** A sentence opening with one of these is an inference from the two statements before it. */
const INFERENCE = /^(?:So|Therefore|Hence),?\s+/

/**
 * A deterministic, TEST-ONLY extractor: one candidate per sentence, facts keyed by two trivial patterns, "I ..."
 * in a turn rewritten to the speaker, and "So ..." sentences derived from the two statements before them. Tests of
 * memory formation use it so their expectations do not depend on the real extractors' language rules.
 */
export function testExtractor(): ExtractorPlugin {
	return {
		apiVersion: PLUGIN_API_VERSION,
		kind: 'extractor',
		name: 'test-extractor',
		async extract(input: ExtractionInput): Promise<MemoryCandidate[]> {
			const units = input.turns
				? input.turns.map((turn) => ({ text: turn.text, speaker: turn.speaker, turn: turn.index }))
				: [{ text: input.text, speaker: null, turn: null }]
			const candidates: MemoryCandidate[] = []
			for (const unit of units) {
				for (const raw of sentences(unit.text)) {
					const inferred = INFERENCE.test(raw) && candidates.length >= 2
					const sentence = firstPerson(raw.replace(INFERENCE, ''), unit.speaker)
					const content = sentence.charAt(0).toUpperCase() + sentence.slice(1)
					const fact = FACTS.map(({ pattern, attribute }) => ({ match: pattern.exec(content), attribute })).find(
						({ match }) => match,
					)
					candidates.push({
						content,
						isStatic: fact !== undefined,
						subject: fact?.match?.groups?.subject ?? null,
						attribute: fact?.attribute ?? null,
						value: fact?.match?.groups?.value ?? null,
						eventDates: [],
						sourcePositions: input.chunks
							.filter((chunk) => chunk.content.includes(raw.slice(0, 30)))
							.map((chunk) => chunk.position),
						sourceTurns: unit.turn === null ? [] : [unit.turn],
						...(inferred ? { derivedFrom: [candidates.length - 2, candidates.length - 1] } : {}),
					})
				}
			}
			return candidates
		},
	}
}

function sentences(text: string): string[] {
	return text
		.split(/(?<=[.!?])\s+|\n+/)
		.map((sentence) => sentence.trim())
		.filter((sentence) => sentence.length > 0)
}

function firstPerson(sentence: string, speaker: string | null): string {
	if (!speaker) return sentence
	return sentence
		.replace(/^I live in /, `${speaker} lives in `)
		.replace(/^I moved to /, `${speaker} moved to `)
		.replace(/^I work as /, `${speaker} works as `)
		.replace(/^I now work as /, `${speaker} now works as `)
		.replace(/^I /, `${speaker} `)
}

/** The test extractor, remembering what it was asked to extract. */
export function recordingExtractor(): ExtractorPlugin & { inputs: ExtractionInput[] } {
	const inner = testExtractor()
	const inputs: ExtractionInput[] = []
	return {
		...inner,
		inputs,
		async extract(input) {
			inputs.push(input)
			return inner.extract(input)
		},
	}
}
