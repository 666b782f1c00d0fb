import { beforeAll, describe, expect, it } from 'bun:test'
import { createLogger, type ExtractionInput, type MemoryCandidate, type PluginContext } from '../../core/index.ts'
import { extractorRules } from '../../plugins/extractor-rules/index.ts'

const extractor = extractorRules()
const ctx = { logger: createLogger('silent'), env: {} } as unknown as PluginContext
beforeAll(() => extractor.init?.(ctx))

const MONDAY = '2023-05-08'

function chat(turns: [speaker: string, text: string][], date: string | null = MONDAY): ExtractionInput {
	const text = turns.map(([speaker, line]) => `${speaker}: ${line}`).join('\n')
	return {
		documentId: 'doc-1',
		containerTag: 'test',
		text,
		turns: turns.map(([speaker, line], index) => ({ speaker, text: line, index })),
		date,
		entityContext: null,
		chunks: [{ position: 0, content: text }],
	}
}

function documentInput(
	text: string,
	entityContext: string | null = null,
	date: string | null = MONDAY,
): ExtractionInput {
	return { documentId: 'doc-2', containerTag: 'test', text, turns: null, date, entityContext, chunks: [] }
}

async function contents(input: ExtractionInput): Promise<string[]> {
	return (await extractor.extract(input)).map((candidate) => candidate.content)
}

async function only(input: ExtractionInput): Promise<MemoryCandidate> {
	const candidates = await extractor.extract(input)
	expect(candidates).toHaveLength(1)
	return candidates[0]!
}

describe('extractor-rules', () => {
	it('is an extractor plugin of the current API version', () => {
		expect(extractor).toMatchObject({ apiVersion: 1, kind: 'extractor', name: 'extractor-rules' })
	})

	it("rewrites the issue's example: speaker's name, resolved date, pet fact", async () => {
		const candidate = await only(chat([['Caroline', 'I adopted a puppy last week']]))
		expect(candidate).toEqual({
			content: 'Caroline adopted a puppy in the week before 2023-05-08',
			isStatic: true,
			subject: 'Caroline',
			attribute: 'pet:puppy',
			value: 'puppy',
			eventDates: ['2023-05-01'],
			sourcePositions: [0],
			sourceTurns: [0],
		})
	})

	describe('first and second person', () => {
		it.each([
			['I am a nurse', 'Caroline is a nurse'],
			["I'm swamped with work", 'Caroline is swamped with work'],
			['I have two kids', 'Caroline has two kids'],
			["I've been to Paris twice", 'Caroline has been to Paris twice'],
			['I was born in Sweden', 'Caroline was born in Sweden'],
			['I really love painting landscapes', 'Caroline really loves painting landscapes'],
			["I don't eat meat anymore", "Caroline doesn't eat meat anymore"],
			["I'd love to visit Japan someday", 'Caroline would love to visit Japan someday'],
			['I watch documentaries about space', 'Caroline watches documentaries about space'],
			['My wife Sarah and I moved to Denver', "Caroline's wife Sarah and Caroline moved to Denver"],
			[
				'The support group made me feel accepted and gave me courage',
				'The support group made Caroline feel accepted and gave them courage',
			],
			['I sold my old car to my neighbour', 'Caroline sold their old car to their neighbour'],
			['I moved to Lisbon and I need a dentist', 'Caroline moved to Lisbon and Caroline needs a dentist'],
		])('%s -> %s', async (said, statement) => {
			expect(await contents(chat([['Caroline', said]]))).toEqual([statement])
		})

		it('reads "we" as the family when the speaker talks about their family', async () => {
			expect(await contents(chat([['Melanie', 'We adopted a cat, and my kids are thrilled.']]))).toEqual([
				"Melanie and their family adopted a cat, and Melanie's kids are thrilled",
			])
			expect(await contents(chat([['Jon', 'We rehearsed the new choreography for the festival.']]))).toEqual([
				'Jon and others rehearsed the new choreography for the festival',
			])
		})

		it('puts the subject back into chat sentences that drop it', async () => {
			expect(await contents(chat([['Jon', 'Lost my job as a banker yesterday. Been to Rome once.']]))).toEqual([
				'Jon lost their job as a banker on 2023-05-07',
				'Jon has been to Rome once',
			])
		})

		it('names the other speaker of a two-person chat for "you" and "your"', async () => {
			const found = await contents(
				chat([
					['Caroline', 'I finished my first marathon!'],
					['Melanie', 'Your training really paid off and you were so brave.'],
				]),
			)
			expect(found).toContain("Caroline's training really paid off and Caroline was so brave")
		})

		it('leaves a generic "you" alone', async () => {
			expect(
				await contents(
					chat([
						['Jon', 'I chose Marley flooring because it lets you move freely.'],
						['Gina', 'Nice'],
					]),
				),
			).toEqual(['Jon chose Marley flooring because it lets you move freely'])
		})
	})

	describe('relative dates against the session date (Monday 2023-05-08)', () => {
		it.each([
			['I went hiking yesterday', 'Caroline went hiking on 2023-05-07', ['2023-05-07']],
			['I started a new painting today', 'Caroline started a new painting on 2023-05-08', ['2023-05-08']],
			['I will visit my mom tomorrow', 'Caroline will visit their mom on 2023-05-09', ['2023-05-09']],
			['I baked bread this morning', 'Caroline baked bread on the morning of 2023-05-08', ['2023-05-08']],
			['I am flying to Rome next week', 'Caroline is flying to Rome in the week after 2023-05-08', ['2023-05-15']],
			['I went camping last weekend', 'Caroline went camping on the weekend before 2023-05-08', ['2023-05-06']],
			['I will go camping next weekend', 'Caroline will go camping on the weekend after 2023-05-08', ['2023-05-13']],
			['I ran a marathon last month', 'Caroline ran a marathon in April 2023', ['2023-04-01']],
			['I am moving to Paris next month', 'Caroline is moving to Paris in June 2023', ['2023-06-01']],
			['I graduated last year', 'Caroline graduated in 2022', ['2022-01-01']],
			['I will retire next year', 'Caroline will retire in 2024', ['2024-01-01']],
			['I sold my car 3 days ago', 'Caroline sold their car on 2023-05-05', ['2023-05-05']],
			['I met Anna two weeks ago', 'Caroline met Anna two weeks before 2023-05-08', ['2023-04-24']],
			['I started yoga 2 months ago', 'Caroline started yoga in March 2023', ['2023-03-01']],
			['I quit smoking 3 years ago', 'Caroline quit smoking in 2020', ['2020-01-01']],
			['I saw a concert last Friday', 'Caroline saw a concert on 2023-05-05', ['2023-05-05']],
			['I start my new job in 2 weeks', 'Caroline starts their new job 2 weeks after 2023-05-08', ['2023-05-22']],
		])('%s', async (said, statement, dates) => {
			const candidate = await only(chat([['Caroline', said]]))
			expect(candidate.content).toBe(statement)
			expect(candidate.eventDates).toEqual(dates)
		})

		it('keeps absolute dates as written and lists them', async () => {
			const candidate = await only(chat([['Caroline', 'I was born on 4 July 1990']]))
			expect(candidate.content).toBe('Caroline was born on 4 July 1990')
			expect(candidate.eventDates).toEqual(['1990-07-04'])
		})

		it('resolves against the date part of a timestamp and leaves relative dates alone without one', async () => {
			expect((await only(chat([['Caroline', 'I went hiking yesterday']], '2023-05-08T23:30:00-07:00'))).content).toBe(
				'Caroline went hiking on 2023-05-07',
			)
			const undated = await only(chat([['Caroline', 'I went hiking yesterday']], null))
			expect(undated.content).toBe('Caroline went hiking yesterday')
			expect(undated.eventDates).toEqual([])
		})
	})

	describe('chatter', () => {
		it('drops greetings, thanks, acknowledgements, reactions, empty questions and fragments', async () => {
			const found = await contents(
				chat([
					['Caroline', 'Hey Mel! Good to see you! How have you been?'],
					['Melanie', 'Hi Caroline! Thanks so much, that is really sweet.'],
					['Caroline', "Wow, that's great! Totally agree."],
					['Melanie', 'Yeah. Sounds good! Anything new?'],
					['Caroline', "Haha, okay. Can't wait! Take care!"],
				]),
			)
			expect(found).toEqual([])
		})

		it('keeps the facts around the chatter', async () => {
			const found = await contents(
				chat([
					['Caroline', "Hey Mel! I'm swamped with the kids & work. How are you?"],
					['Melanie', 'Thanks for asking! I painted that lake sunrise last year.'],
				]),
			)
			expect(found).toEqual(['Caroline is swamped with the kids & work', 'Melanie painted that lake sunrise in 2022'])
		})

		it('keeps a question that states a fact', async () => {
			expect(await contents(chat([['Caroline', 'Did you know I moved to Paris?']]))).toEqual([
				'Caroline moved to Paris',
			])
		})

		it('joins a sentence that points back to the one before it', async () => {
			expect(
				await contents(chat([['Melanie', 'I ran a charity race for mental health. It raised money for a shelter.']])),
			).toEqual(['Melanie ran a charity race for mental health; it raised money for a shelter'])
		})
	})

	describe('near-duplicates', () => {
		it('merges statements equal after normalization and unites their sources', async () => {
			const candidates = await extractor.extract(
				chat([
					['Alex', 'I love hiking in the mountains.'],
					['Sam', 'Me too.'],
					['Alex', 'I really love hiking in the mountains!'],
				]),
			)
			expect(candidates.map((candidate) => [candidate.content, candidate.sourceTurns])).toEqual([
				['Alex loves hiking in the mountains', [0, 2]],
			])
		})

		it('keeps the more informative of two statements when one contains the other', async () => {
			const candidates = await extractor.extract(
				chat([
					['Sam', 'I moved to Boston.'],
					['Sam', 'I moved to Boston with my wife.'],
				]),
			)
			expect(candidates.map((candidate) => [candidate.content, candidate.sourceTurns])).toEqual([
				['Sam moved to Boston with their wife', [0, 1]],
			])
		})
	})

	describe('subject, attribute and value', () => {
		it('gives "lives in" and "moved to" the same subject and attribute', async () => {
			const boston = await only(documentInput('Alex lives in Boston.'))
			const seattle = await only(documentInput('Alex moved to Seattle.'))
			expect([boston.subject, boston.attribute, boston.value]).toEqual(['Alex', 'residence', 'Boston'])
			expect([seattle.subject, seattle.attribute, seattle.value]).toEqual(['Alex', 'residence', 'Seattle'])
			expect(boston.isStatic && seattle.isStatic).toBe(true)
		})

		it.each([
			['I work as a software engineer at Acme', 'job', 'software engineer'],
			['I work at Google', 'workplace', 'Google'],
			['I grew up in Lisbon', 'hometown', 'Lisbon'],
			['I am 32 years old', 'age', '32'],
			['I am married', 'relationship status', 'married'],
			['I study psychology', 'education', 'psychology'],
			['My favourite food is sushi', 'favourite food', 'sushi'],
			['My husband Tom is a chef', 'spouse', 'Tom'],
			['I have a cat named Luna', 'pet:luna', 'Luna'],
			['I want to become a counselor', 'goal:become counselor', 'become a counselor'],
			['I was diagnosed with asthma', 'health:asthma', 'asthma'],
		])('%s -> %s', async (said, attribute, value) => {
			const candidate = await only(chat([['Caroline', said]]))
			expect([candidate.subject, candidate.attribute, candidate.value, candidate.isStatic]).toEqual([
				'Caroline',
				attribute,
				value,
				true,
			])
		})

		it('leaves the attribute null for events, negations and endings', async () => {
			const [event, negated, ended] = await extractor.extract(
				chat([['Caroline', 'I went to a concert with my sister. I never lived in Boston. I lost my job as a banker.']]),
			)
			expect([event!.attribute, event!.isStatic]).toEqual([null, false])
			expect([negated!.subject, negated!.attribute]).toEqual(['Caroline', null])
			expect([ended!.content, ended!.attribute]).toEqual(['Caroline lost their job as a banker', null])
		})

		it('tells durable identity from passing states', async () => {
			const [vegan, tired] = await extractor.extract(
				chat([['Caroline', "I'm vegan. I'm exhausted after the trip today."]]),
			)
			expect([vegan!.content, vegan!.isStatic]).toEqual(['Caroline is vegan', true])
			expect([tired!.content, tired!.isStatic]).toEqual(['Caroline is exhausted after the trip on 2023-05-08', false])
		})

		it('keeps exclamations, wishes and what someone wanted or liked before out of the durable facts', async () => {
			const candidates = await extractor.extract(
				chat([
					['Melanie', 'Caroline, you are so thoughtful.'],
					['Caroline', 'Art is such a source of joy.'],
					['Caroline', 'I would love to check them out.'],
					['Caroline', 'I wanted to capture their unity.'],
					['Caroline', 'I loved reading books as a kid.'],
					['Caroline', 'I love creating art.'],
					['Caroline', 'I want to become a counselor.'],
				]),
			)
			expect(candidates.map((candidate) => [candidate.content, candidate.isStatic])).toEqual([
				['Caroline is so thoughtful', false],
				['Art is such a source of joy', false],
				['Caroline would love to check them out', false],
				['Caroline wanted to capture their unity', false],
				['Caroline loved reading books as a kid', false],
				['Caroline loves creating art', true],
				['Caroline wants to become a counselor', true],
			])
		})
	})

	describe('sources', () => {
		it('points each statement at its turn and at the chunk that holds it', async () => {
			const turns: [string, string][] = [
				['Caroline', 'Hi Mel!'],
				['Melanie', 'Hey! I signed up for a pottery class.'],
				['Caroline', 'Nice! I bought a new bike yesterday.'],
			]
			const input = chat(turns)
			input.chunks = [
				{ position: 0, content: 'Caroline: Hi Mel!\nMelanie: Hey! I signed up for a pottery class.' },
				{ position: 1, content: 'Caroline: Nice! I bought a new bike yesterday.' },
			]
			const candidates = await extractor.extract(input)
			expect(
				candidates.map((candidate) => [candidate.content, candidate.sourceTurns, candidate.sourcePositions]),
			).toEqual([
				['Melanie signed up for a pottery class', [1], [0]],
				['Caroline bought a new bike on 2023-05-07', [2], [1]],
			])
		})

		it('reports the turn index the conversation gave, not the position in the list', async () => {
			const input = chat([['Caroline', 'I bought a new bike.']])
			input.turns = [{ speaker: 'Caroline', text: 'I bought a new bike.', index: 41 }]
			expect((await only(input)).sourceTurns).toEqual([41])
		})
	})

	describe('documents', () => {
		it('names "I" with the entity context', async () => {
			const found = await extractor.extract(
				documentInput('I moved to Berlin last year. I work as a nurse.', 'The user is Alex, a nurse in Berlin'),
			)
			expect(found.map((candidate) => [candidate.content, candidate.subject, candidate.attribute])).toEqual([
				['Alex moved to Berlin in 2022', 'Alex', 'residence'],
				['Alex works as a nurse', 'Alex', 'job'],
			])
		})

		it('calls an unnamed first-person author "the user"', async () => {
			expect(await contents(documentInput('I moved to Berlin last year.'))).toEqual([
				'The user moved to Berlin in 2022',
			])
		})

		it('keeps third-person sentences as they are, with the main entity as subject', async () => {
			const found = await extractor.extract(
				documentInput(
					'# Notes\n\nMarie Curie was a physicist.\n\n```js\nconst x = 1\n```\n\nThe **Eiffel Tower** is in Paris.',
				),
			)
			expect(found.map((candidate) => [candidate.content, candidate.subject])).toEqual([
				['Marie Curie was a physicist', 'Marie Curie'],
				['The Eiffel Tower is in Paris', 'Eiffel Tower'],
			])
		})

		it('reads a chat transcript given as plain text by its speakers', async () => {
			const found = await extractor.extract(
				documentInput('Caroline: I adopted a puppy last week\nMelanie: Wow, congrats!\nCaroline: Thanks!'),
			)
			expect(found.map((candidate) => [candidate.content, candidate.sourceTurns])).toEqual([
				['Caroline adopted a puppy in the week before 2023-05-08', []],
			])
		})

		it('returns nothing for empty input or empty turns', async () => {
			expect(await extractor.extract(documentInput('   '))).toEqual([])
			expect(
				await extractor.extract(
					chat([
						['Caroline', ''],
						['Melanie', '  '],
					]),
				),
			).toEqual([])
		})
	})

	it('reads a sentence with a word wink-nlp gives no lemma ("cannot")', async () => {
		const text = 'Decommissioned which to were without that many cannot. Maria adopted a beagle named Rex.'
		const found = await contents(documentInput(text))
		expect(found.some((content) => content.includes('beagle named Rex'))).toBe(true)
	})

	it('skips assistant turns unless asked to include them', async () => {
		const input = chat([
			['user', 'I moved to Lisbon last month.'],
			['assistant', 'I recommend visiting the Belem Tower in Lisbon.'],
		])
		input.entityContext = 'The user is Alex'
		expect(await contents(input)).toEqual(['Alex moved to Lisbon in April 2023'])
		const withAssistant = extractorRules({ includeAssistantTurns: true })
		expect((await withAssistant.extract(input)).map((candidate) => candidate.content)).toEqual([
			'Alex moved to Lisbon in April 2023',
			'The assistant recommends visiting the Belem Tower in Lisbon',
		])
	})
})
