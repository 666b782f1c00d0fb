import { afterAll, beforeAll, expect, it } from 'bun:test'
import type { EmbedderPlugin } from '../../core/index.ts'
import { createLogger } from '../../core/logger.ts'
import { chunkText } from '../../core/pipeline/chunker.ts'
import { processDocument } from '../../core/pipeline/process-document.ts'
import { newDocument } from '../../testkit/contract/storage.contract.ts'
import { describeEachDriver } from '../../testkit/drivers.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'

/** The service's embedder, failing on its call number `failOn` (an outage mid-document) and counting texts. */
function flakyEmbedder(real: EmbedderPlugin, failOn: number | null) {
	let calls = 0
	const texts: string[] = []
	const embedder: EmbedderPlugin = {
		...real,
		async embed(batch, purpose) {
			calls++
			if (calls === failOn) throw new Error('embedding service unavailable')
			texts.push(...batch)
			return real.embed(batch, purpose)
		},
	}
	return { embedder, texts }
}

/** 70 paragraphs of about 900 characters: one chunk each, more than one embedding batch (64). */
const longText = Array.from({ length: 70 }, (_, n) =>
	`Paragraph ${n} about the harbour survey. `.concat(
		'The tide tables and the buoy positions were checked again. '.repeat(14),
	),
).join('\n\n')

const SHORT_TEXT = 'The lighthouse keeper logs the weather.\n\nThe ferry leaves at noon.'

/** A document of a new organization stored without a job, so the service's worker leaves it to the test. */
async function storedWithoutJob(t: TestService, name: string) {
	const { storage } = t.service.plugins
	const scope = { orgId: (await storage.orgs.create(`${name}-${crypto.randomUUID()}`)).id }
	const { document } = await storage.documents.upsert(
		scope,
		newDocument({ content: SHORT_TEXT, containerTag: name, contentHash: `${name}-1` }),
	)
	return { scope, document }
}

describeEachDriver('pipeline retries', (driver) => {
	let t: TestService
	beforeAll(async () => {
		t = await startTestService(driver, { extractor: null })
	}, 60_000)
	afterAll(() => t.stop())

	it('resumes at the first chunk not embedded, and publishes every chunk once, in order', async () => {
		const { storage, embedder: real } = t.service.plugins
		const logger = createLogger('error')
		// Stored without a job, so the service's own worker leaves it alone: the test runs the pipeline itself.
		const scope = { orgId: (await storage.orgs.create(`resume-${crypto.randomUUID()}`)).id }
		const { document } = await storage.documents.upsert(
			scope,
			newDocument({ content: longText, containerTag: 'resume', contentHash: 'resume-1' }),
		)

		const first = flakyEmbedder(real, 2)
		await expect(
			processDocument(document.id, { storage, embedder: first.embedder, logger }, { lastAttempt: false }),
		).rejects.toThrow('embedding service unavailable')
		const failed = (await storage.documents.byId(document.id))!
		expect(failed.status).toBe('embedding')
		expect(failed.stages.at(-1)).toMatchObject({ stage: 'embedding', outcome: 'failed' })
		expect(first.texts).toHaveLength(64)
		// Nothing is searchable before the document is published.
		expect(await storage.chunks.list(scope, document.id)).toEqual([])

		const retry = flakyEmbedder(real, null)
		await processDocument(document.id, { storage, embedder: retry.embedder, logger }, { lastAttempt: false })
		expect((await storage.documents.byId(document.id))!.status).toBe('done')
		// Only the chunks the first attempt did not stage were embedded again.
		expect(retry.texts.length).toBeGreaterThan(0)
		expect(first.texts.length + retry.texts.length).toBe(70)
		expect(retry.texts).not.toContain(first.texts[0])

		const chunks = await storage.chunks.list(scope, document.id)
		expect(chunks.map((chunk) => chunk.position)).toEqual(Array.from({ length: 70 }, (_, n) => n))
		expect(chunks.map((chunk) => chunk.content)).toEqual([...first.texts, ...retry.texts])
		// Every published chunk carries its embedding: a vector search over the container finds all of them.
		const hits = await storage.search.chunksByVector(scope, {
			containerTags: ['resume'],
			vector: (await real.embed(['harbour survey tide tables'], 'query'))[0]!,
			terms: [],
			limit: 100,
		})
		expect(hits).toHaveLength(70)
	})

	it('embeds chunks an older version staged without their embeddings, then publishes them all', async () => {
		const { storage, embedder } = t.service.plugins
		const logger = createLogger('error')
		const { scope, document } = await storedWithoutJob(t, 'upgrade')
		const text = SHORT_TEXT
		// What the previous pipeline left: text extracted, chunks staged without vectors, stopped before embedding.
		await storage.documents.setExtracted(document.id, document.contentHash, { text, title: null, type: 'text' })
		const chunks = chunkText(text)
		await storage.chunks.stage(
			document.id,
			chunks.map((chunk) => ({ ...chunk, type: 'text' as const, metadata: null, embedding: null })),
		)
		const at = new Date().toISOString()
		const ok = (stage: 'extracting' | 'chunking') => ({ stage, startedAt: at, endedAt: at, outcome: 'ok' as const })
		await storage.documents.setProgress(document.id, {
			contentHash: 'upgrade-1',
			status: 'embedding',
			stages: [ok('extracting'), ok('chunking')],
		})

		await processDocument(document.id, { storage, embedder, logger }, { lastAttempt: false })
		expect((await storage.documents.byId(document.id))!.status).toBe('done')
		const hits = await storage.search.chunksByVector(scope, {
			containerTags: ['upgrade'],
			vector: (await embedder.embed(['ferry noon'], 'query'))[0]!,
			terms: [],
			limit: 10,
		})
		expect(hits).toHaveLength(chunks.length)
	})

	it('keeps the published chunks when a run resumes after publishing but before recording it', async () => {
		const { storage, embedder } = t.service.plugins
		const logger = createLogger('error')
		const { scope, document } = await storedWithoutJob(t, 'republish')
		await processDocument(document.id, { storage, embedder, logger }, { lastAttempt: false })
		const published = await storage.chunks.list(scope, document.id)
		expect(published.length).toBeGreaterThan(0)
		// A process killed right after the publish committed: the document still shows the indexing stage running.
		const done = (await storage.documents.byId(document.id))!
		const indexing = done.stages.findIndex((record) => record.stage === 'indexing')
		await storage.documents.setProgress(document.id, {
			contentHash: 'republish-1',
			status: 'indexing',
			stages: [...done.stages.slice(0, indexing), { ...done.stages[indexing]!, endedAt: null, outcome: 'running' }],
		})

		await processDocument(document.id, { storage, embedder, logger }, { lastAttempt: false })
		expect((await storage.documents.byId(document.id))!.status).toBe('done')
		expect((await storage.chunks.list(scope, document.id)).map((chunk) => chunk.id)).toEqual(
			published.map((chunk) => chunk.id),
		)
	})
})
