import { z } from 'zod'

/**
 * What the model must answer, as a JSON schema (sent as OpenAI structured output, `strict`). Every field is required
 * (nullable where a value may be absent), as strict structured output demands; `sanitizeMemories` then checks what a
 * schema cannot say (real dates, sources that exist, indexes inside the list).
 */
export const extractionSchema = z.object({
	memories: z
		.array(
			z.object({
				content: z
					.string()
					.describe('One atomic, self-contained statement in the third person, relative dates resolved to ISO dates.'),
				isStatic: z
					.boolean()
					.describe(
						'True for durable facts: identity, relationships, work, places, lasting preferences, long-running goals.',
					),
				subject: z
					.string()
					.nullable()
					.describe('Who or what the statement is about, e.g. "Caroline"; null when unclear.'),
				attribute: z
					.string()
					.nullable()
					.describe(
						'Short stable key of what it states about the subject, e.g. "residence", "job", "pet:oscar"; null for events.',
					),
				value: z.string().nullable().describe('The value of the attribute, e.g. "Seattle"; null when there is none.'),
				eventDates: z.array(z.string()).describe('ISO dates (YYYY-MM-DD) the statement refers to.'),
				sources: z.array(z.number()).describe('Numbers of the turns or document parts the statement comes from.'),
				derivedFrom: z
					.array(z.number())
					.describe('For an inference drawn from other statements of this list: their zero-based indexes; else empty.'),
				buckets: z.array(z.string()).describe('Keys of the buckets the statement belongs to; empty when none fit.'),
			}),
		)
		.describe('The memories found, in the order of the content.'),
})

export type ExtractionOutput = z.infer<typeof extractionSchema>
export type ModelMemory = ExtractionOutput['memories'][number]
