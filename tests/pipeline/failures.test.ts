import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { ExtractorPlugin, Logger } from '../../core/index.ts'
import { PLUGIN_API_VERSION } from '../../core/index.ts'
import { startTestService, type TestService } from '../../testkit/service.ts'
import { upload } from '../../testkit/upload.ts'

/** An extractor with a bug: it reads a property of undefined, as a parser meeting unexpected input does. */
function brokenExtractor(): ExtractorPlugin {
	return {
		apiVersion: PLUGIN_API_VERSION,
		kind: 'extractor',
		name: 'broken-extractor',
		async extract(input) {
			const missing = (input as unknown as { nothing?: { deeper: string } }).nothing
			return [{ content: missing!.deeper } as never]
		},
	}
}

/** Keeps what the service logs, to check the raw error went there. */
function recordingLogger(): Logger & { lines: { message: string; fields?: Record<string, unknown> }[] } {
	const lines: { message: string; fields?: Record<string, unknown> }[] = []
	const keep = (message: string, fields?: Record<string, unknown>) => {
		lines.push({ message, fields })
	}
	return { lines, debug: keep, info: keep, warn: keep, error: keep }
}

describe('pipeline failures', () => {
	let t: TestService
	const logger = recordingLogger()
	beforeAll(async () => {
		t = await startTestService('pglite', { extractor: brokenExtractor(), logger })
	}, 180_000)
	afterAll(() => t.stop())

	it('extracts plain text uploaded as text/html at the first attempt', async () => {
		const text = 'Plain notes about the greenhouse: the basil needs water every second day.'
		const added = await upload(
			t,
			{ bytes: new TextEncoder().encode(text), name: 'notes.html', type: 'text/html' },
			{ containerTag: 'html_plain', taskType: 'superrag' },
		)
		expect(added.status).toBe(200)
		const done = await t.waitForStatus(added.body.id)
		expect({ status: done.status, type: done.type, error: done.error }).toEqual({
			status: 'done',
			type: 'webpage',
			error: null,
		})
		const extracting = done.stages.filter((stage: { stage: string }) => stage.stage === 'extracting')
		expect(extracting).toHaveLength(1)
		expect(extracting[0].outcome).toBe('ok')
		const chunks = await t.json('GET', `/v3/documents/${added.body.id}/chunks`)
		expect(chunks.body.chunks.map((chunk: { content: string }) => chunk.content).join(' ')).toContain(
			'the basil needs water every second day',
		)
	})

	it("shows an internal failure in the user's terms and keeps the raw message in the log", async () => {
		const added = await t.json('POST', '/v3/documents', {
			content: 'Marie keeps bees on the roof of the library.',
			containerTag: 'internal_error',
			dreaming: 'instant',
		})
		expect(added.status).toBe(200)
		const failed = await t.waitForStatus(added.body.id, ['failed'], undefined, 30_000)
		expect(failed.error).toBe('an internal error while forming memories; the service log has the details')
		const stage = failed.stages.find((record: { outcome: string }) => record.outcome === 'failed')
		expect(stage).toMatchObject({ stage: 'memories', error: failed.error })
		const logged = logger.lines.filter(
			(line) => line.message === 'pipeline stage failed' && line.fields?.documentId === added.body.id,
		)
		expect(logged.length).toBeGreaterThan(0)
		expect(String(logged[0]!.fields!.error)).toContain('TypeError')
	}, 40_000)
})
