import type { ExtractionInput, MemoryCandidate } from '../../core/index.ts'
import { parseReferenceDate } from './absolute-dates.ts'
import { judgeSentence } from './chatter.ts'
import { type Participants, stripDiscourse } from './cleanup.ts'
import { expandContractions } from './contractions.ts'
import { mergeNearDuplicates } from './dedup.ts'
import { entityName } from './entity-context.ts'
import { factKey } from './fact-keys.ts'
import { addImpliedSubject } from './implied-subject.ts'
import { ANAPHORIC_PRONOUNS, FAMILY_NOUNS } from './lexicon.ts'
import type { Analyser } from './nlp.ts'
import { ASSISTANT_ROLES, type Person, speakerPerson } from './person.ts'
import { resolveDates } from './resolve-dates.ts'
import { chunkLocator } from './source-positions.ts'
import { rewriteVoice, type Voice } from './speaker-voice.ts'
import { isStaticFact } from './static-facts.ts'
import { splitInput, type TextUnit } from './text-units.ts'
import { isClauseBreak, isSentenceEnd, makeToken, renderTokens, type Token } from './tokens.ts'

export interface StatementOptions {
	includeAssistantTurns: boolean
	maxJoinedChars: number
}

/** A kept sentence (or a sentence with the ones pointing back to it) before its rewrite. */
interface Draft {
	tokens: Token[]
	unit: TextUnit
	voice: Voice
	/** The source sentences as written, to find their chunks. */
	sources: string[]
	/** Index of the last source sentence in its unit, to join only adjacent sentences. */
	lastSentence: number
}

/**
 * Turns an extraction input into memory candidates: units (turns or paragraphs) -> sentences (wink-nlp) -> without
 * discourse markers and chatter -> relative dates resolved -> third person -> subject/attribute/value and static
 * flag -> near-duplicates merged.
 */
export function extractStatements(
	input: ExtractionInput,
	analyse: Analyser,
	options: StatementOptions,
): MemoryCandidate[] {
	const { units, preambleDate } = splitInput(input)
	const reference = parseReferenceDate(input.date) ?? parseReferenceDate(preambleDate)
	const entity = entityName(analyse, input.entityContext)
	const speakers = [...new Set(units.flatMap((unit) => (unit.speaker ? [unit.speaker] : [])))]
	const participants: Participants = [...speakers, ...(entity ? [entity] : [])].map((name) => name.toLowerCase())
	const locate = chunkLocator(input.chunks)

	const drafts: Draft[] = []
	for (const unit of units) {
		if (unit.speaker && ASSISTANT_ROLES.has(unit.speaker.toLowerCase()) && !options.includeAssistantTurns) continue
		const sentences = analyse(unit.text)
		const speaker: Person = unit.speaker ? speakerPerson(unit.speaker, entity) : { name: entity ?? 'the user' }
		const voice: Voice = {
			speaker,
			addressee: addresseeOf(unit, speakers, entity),
			group: unit.conversational ? groupOf(sentences.flatMap((sentence) => sentence.tokens)) : null,
		}
		let previous: Draft | null = null
		for (const [index, sentence] of sentences.entries()) {
			let tokens = stripDiscourse(expandContractions(sentence.tokens), participants)
			if (unit.conversational) tokens = addImpliedSubject(tokens)
			const verdict = judgeSentence(tokens, { conversational: unit.conversational })
			if (verdict.kind === 'chatter') continue
			tokens = verdict.tokens
			if (previous && previous.lastSentence === index - 1 && pointsBack(tokens)) {
				const joined = joinSentences(previous.tokens, tokens)
				if (renderTokens(joined).length <= options.maxJoinedChars) {
					previous.tokens = joined
					previous.sources.push(sentence.text)
					previous.lastSentence = index
					continue
				}
			}
			const draft: Draft = { tokens, unit, voice, sources: [sentence.text], lastSentence: index }
			drafts.push(draft)
			previous = draft
		}
	}

	const candidates = drafts.map((draft) => toCandidate(draft, reference, locate))
	return mergeNearDuplicates(candidates)
}

function toCandidate(draft: Draft, reference: string | null, locate: (sentence: string) => number[]): MemoryCandidate {
	const dated = resolveDates(draft.tokens, reference)
	const group: Voice['group'] =
		draft.voice.group === 'others' && mentionsAddressee(dated.tokens) ? 'pair' : draft.voice.group
	const tokens = rewriteVoice(dated.tokens, { ...draft.voice, group })
	const key = factKey(tokens)
	const subject =
		key.subject ?? (tokens.some((token) => token.role === 'speaker') ? (draft.voice.speaker?.name ?? null) : null)
	return {
		content: finishSentence(tokens),
		isStatic: isStaticFact(tokens, key, dated.eventDates),
		subject,
		attribute: key.attribute,
		value: key.value,
		eventDates: [...new Set(dated.eventDates)],
		sourcePositions: [...new Set(draft.sources.flatMap(locate))].sort((a, b) => a - b),
		sourceTurns: draft.unit.turnIndex === null ? [] : [draft.unit.turnIndex],
	}
}

/** In a two-person chat, "you" is the other speaker (unless that is an assistant: statements are about people). */
function addresseeOf(unit: TextUnit, speakers: string[], entity: string | null): Person | null {
	if (!unit.conversational || !unit.speaker || speakers.length !== 2) return null
	const other = speakers.find((speaker) => speaker !== unit.speaker)!
	if (ASSISTANT_ROLES.has(other.toLowerCase())) return null
	return speakerPerson(other, entity)
}

/** "we" in a chat turn that speaks of the speaker's family ("my kids", "our son") is that family; otherwise others. */
function groupOf(tokens: Token[]): Voice['group'] {
	const ownFamily = tokens.some(
		(token, index) => FAMILY_NOUNS.has(token.normal) && ['my', 'our'].includes(tokens[index - 1]?.normal ?? ''),
	)
	return ownFamily ? 'family' : 'others'
}

/** Verbs two people do together: "since we last chatted" is the speaker and the addressee. */
const TOGETHER_VERBS = new Set(['chat', 'talk', 'speak', 'meet', 'catch', 'hang'])

/** "we" with "you", "together", "both" or a verb of meeting in the sentence is the speaker and the addressee. */
function mentionsAddressee(tokens: Token[]): boolean {
	return tokens.some(
		(token) =>
			token.normal === 'you' ||
			token.normal === 'together' ||
			token.normal === 'both' ||
			TOGETHER_VERBS.has(token.lemma),
	)
}

/** "It was so powerful." after "I went to a support group.": the sentence needs the one before it. */
function pointsBack(tokens: Token[]): boolean {
	const first = tokens[0]
	return first !== undefined && first.pos === 'PRON' && ANAPHORIC_PRONOUNS.has(first.normal)
}

function joinSentences(first: Token[], second: Token[]): Token[] {
	const head = isSentenceEnd(first.at(-1)) ? first.slice(0, -1) : first
	const [opening, ...rest] = second
	const lowered = { ...opening!, value: opening!.value.toLowerCase(), space: ' ' }
	return [...head, makeToken(';', 'PUNCT', ';', ''), lowered, ...rest]
}

/** Capitalised, without final punctuation or trailing commas (a closing quote keeps its own). */
function finishSentence(tokens: Token[]): string {
	let end = tokens.length
	while (end > 0 && (isSentenceEnd(tokens[end - 1]) || isClauseBreak(tokens[end - 1]))) end--
	const text = renderTokens(tokens.slice(0, end)).trim()
	return `${text[0]!.toUpperCase()}${text.slice(1)}`
}
