import { beforeAll, describe, expect, it } from 'bun:test'
import { createLogger, type PluginContext } from '../../core/index.ts'
import { extractorRules } from '../../plugins/extractor-rules/index.ts'

const extractor = extractorRules()
beforeAll(() => extractor.init?.({ logger: createLogger('silent'), env: {} } as unknown as PluginContext))

/** Written on Thursday 2026-11-26: the previous week's days are 11-20 to 11-25, the coming ones 11-27 to 12-02. */
const THURSDAY = '2026-11-26'

const TABLE: [sentence: string, date: string][] = [
	// Future and present (progressive, habitual, modal, copula, passive): forward.
	['I present on Friday.', '2026-11-27'],
	["I'm presenting on Friday.", '2026-11-27'],
	['We are meeting the client on Monday.', '2026-11-30'],
	['Alice presents the roadmap on Wednesday.', '2026-12-02'],
	['I have to present on Friday.', '2026-11-27'],
	['I need to finish the report by Friday.', '2026-11-27'],
	['The demo is on Friday.', '2026-11-27'],
	['The demo is scheduled for Tuesday.', '2026-12-01'],
	['Bob has a dentist appointment on Monday.', '2026-11-30'],
	['Sam leaves for Oslo on Sunday.', '2026-11-29'],
	['I will fly to Oslo on Saturday.', '2026-11-28'],
	["I'm going to call Sam on Tuesday.", '2026-12-01'],
	// Past (simple, perfect, copula): backward.
	['I presented on Friday.', '2026-11-20'],
	['I met Sam on Monday.', '2026-11-23'],
	['We were in Oslo on Tuesday.', '2026-11-24'],
	['I went hiking on Saturday.', '2026-11-21'],
	['The demo was on Friday.', '2026-11-20'],
	['I have presented the plan on Monday.', '2026-11-23'],
	['Bob had a dentist appointment on Monday.', '2026-11-23'],
	['I called Sam on Wednesday.', '2026-11-25'],
]

describe('extractor-rules: a bare weekday follows the sentence tense', () => {
	for (const [sentence, date] of TABLE) {
		it(`"${sentence}" written on ${THURSDAY} means ${date}`, async () => {
			const [candidate] = await extractor.extract({
				documentId: 'notes',
				containerTag: 'tense',
				text: sentence,
				turns: null,
				date: THURSDAY,
				entityContext: null,
				chunks: [],
			})
			expect(candidate?.eventDates).toEqual([date])
			expect(candidate?.content).toContain(date)
		})
	}
})
