import type { ExtractionInput } from '../../core/index.ts'
import type { InputPart } from './parts.ts'

/** The standing instructions: the same statements extractor-rules aims at, with the judgement a model can add. */
export const SYSTEM_PROMPT = `You extract long-term memories from content for a personal memory service.

Write each memory as one atomic, self-contained statement:
- Third person, with names: a chat speaker's "I", "me", "my" become their name ("Caroline: I adopted a puppy" -> "Caroline adopted a puppy"); "you" becomes the person addressed when it is clear. In a document, "I" is the person the content is about (see "About"), else "the user".
- Resolve relative dates against the content's date and write them into the statement: "last week" -> "in the week before 2023-05-08", "yesterday" -> "on 2023-05-07", "last year" -> "in 2022". Keep absolute dates as written. List every date the statement refers to in eventDates as YYYY-MM-DD (the first day of a week, month or year).
- One fact per statement; no pronouns that point outside the statement; no speculation beyond what is said.
- Leave out chatter: greetings, thanks, acknowledgements, reactions ("Wow, that's great!"), questions that state nothing, small talk. Keep facts stated inside questions ("Did you know I moved to Paris?" -> "Caroline moved to Paris").
- Do not repeat a fact: state it once, with all its details.

For each memory also give:
- subject: who or what it is about, as named ("Caroline"), or null.
- attribute and value when it states one attribute of the subject: residence, hometown, job, workplace, education, spouse, relationship status, age, name, "favourite <thing>". For things a person has several of, put the item in the key: "pet:<name or animal>", "child:<name>", "parent:mother", "sibling:<name>", "friend:<name>", "hobby:<activity>", "likes:<thing>", "dislikes:<thing>", "goal:<short key>", "health:<condition>". "Alex lives in Boston" and "Alex moved to Seattle" both give attribute "residence" (values "Boston", "Seattle"). Use null for events and anything else.
- isStatic: true for durable facts (identity, relationships, work, places, lasting preferences, long-running goals); false for events, plans with a date, moods and passing states.
- sources: the numbers in square brackets of the turns or parts the memory comes from.
- derivedFrom: for a memory you infer from other memories of your list (not stated directly), the zero-based indexes of those memories; otherwise [].
- buckets: the keys of the listed buckets the memory belongs to; [] when no buckets are listed or none fits.

Answer with the JSON object only.`

/** The request for one part: context (date, who it is about, buckets), then the numbered content. */
export function userPrompt(input: ExtractionInput, part: InputPart): string {
	const lines: string[] = []
	lines.push(`Date of the content: ${input.date ?? 'unknown (leave relative dates as written)'}`)
	if (input.entityContext) lines.push(`About: ${input.entityContext}`)
	if (input.buckets && input.buckets.length > 0) {
		lines.push('Buckets:')
		for (const bucket of input.buckets) lines.push(`- ${bucket.key}: ${bucket.description}`)
	}
	lines.push('')
	if (part.kind === 'turns') {
		lines.push('Conversation (each turn numbered for "sources"):')
		for (const unit of part.units) lines.push(`${unit.label} ${unit.text}`)
	} else if (part.kind === 'chunks') {
		lines.push('Document (each part numbered for "sources"):')
		for (const unit of part.units) lines.push(`${unit.label}\n${unit.text}\n`)
	} else {
		lines.push('Document (give "sources" as []):')
		lines.push(part.input.text)
	}
	return lines.join('\n')
}
