import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { supermemoryTools } from '@supermemory/tools/ai-sdk'
import { generateText, stepCountIs, type ToolSet } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { type ClientHarness, startClientHarness } from '../../testkit/client.ts'

/** A model that calls one tool with the given input, then answers "done": the AI SDK runs the tool in between. */
function callingModel(toolName: string, input: unknown) {
	let step = 0
	return new MockLanguageModelV3({
		doGenerate: async () => {
			step += 1
			const usage = {
				inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
				outputTokens: { total: 1, text: 1, reasoning: 0 },
			}
			if (step === 1) {
				return {
					content: [{ type: 'tool-call', toolCallId: 'call-1', toolName, input: JSON.stringify(input) }],
					finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
					usage,
					warnings: [],
				}
			}
			return {
				content: [{ type: 'text', text: 'done' }],
				finishReason: { unified: 'stop', raw: 'stop' },
				usage,
				warnings: [],
			}
		},
	})
}

describe('@supermemory/tools AI SDK tools, driven by a mock model', () => {
	let harness: ClientHarness
	let tools: ReturnType<typeof supermemoryTools>
	beforeAll(async () => {
		harness = await startClientHarness('pglite', { env: { MEMORY_DREAMING_QUIET_SECONDS: '0' } })
		tools = supermemoryTools(harness.t.key, { baseUrl: harness.client.baseURL, containerTags: ['user_1'] })
	}, 60_000)
	afterAll(() => harness.stop())

	async function run(toolName: keyof typeof tools, input: unknown) {
		const result = await generateText({
			model: callingModel(toolName, input),
			prompt: 'remember',
			// Typed against AI SDK 5 (its own dependency); the tool objects (inputSchema, execute) are what this one runs.
			tools: tools as unknown as ToolSet,
			stopWhen: stepCountIs(3),
		})
		const [toolResult] = result.steps.flatMap((step) => step.toolResults)
		return toolResult?.output as { success: boolean; error?: string; memory?: { id: string } }
	}

	async function waitMemories(documentId: string) {
		for (let i = 0; i < 400; i++) {
			const document = (await harness.t.json('GET', `/v3/documents/${documentId}`)).body
			if (document.status === 'failed') throw new Error('document failed')
			if (document.status === 'done' && document.dreamingStatus === 'done') return document
			await Bun.sleep(50)
		}
		throw new Error(`document ${documentId} formed no memories`)
	}

	it('forgets a fact by the exact text it was added with, final full stop included', async () => {
		const added = await run('addMemory', { memory: 'The user likes green tea.' })
		expect(added.success).toBe(true)
		const document = await waitMemories(added.memory!.id)
		expect(document.memories.map((memory: { memory: string }) => memory.memory)).toEqual(['The user likes green tea'])

		const forgotten = await run('memoryForget', { memoryContent: 'The user likes green tea.' })
		expect(forgotten).toMatchObject({ success: true })
		const after = (await harness.t.json('GET', `/v3/documents/${added.memory!.id}`)).body
		expect(after.memories[0].isForgotten).toBe(true)
	})
})
