import { expect } from 'bun:test'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import type { TestService } from './service.ts'

export type Era = 'legacy' | 'modern'

/** The service listening on a real port of 127.0.0.1, for the SDK's own HTTP client. */
export function listen(service: TestService) {
	const app = service.service.app
	if (!app) throw new Error('this service has no HTTP app')
	const server = app.listen({ port: 0, hostname: '127.0.0.1' })
	const origin = `http://127.0.0.1:${server.server!.port}`
	return { origin, url: new URL(`${origin}/mcp`), stop: () => server.stop() }
}

/** An SDK client connected to /mcp with the key as Bearer token, speaking the 2025 era or negotiating the modern one. */
export async function connectMcp(
	url: URL,
	key: string,
	options: { era?: Era; headers?: Record<string, string> } = {},
): Promise<Client> {
	const client = new Client(
		{ name: 'memory-service-tests', version: '1.0.0' },
		{ versionNegotiation: { mode: options.era === 'modern' ? 'auto' : 'legacy' } },
	)
	await client.connect(
		new StreamableHTTPClientTransport(url, {
			authProvider: { token: async () => key },
			requestInit: { headers: options.headers ?? {} },
		}),
	)
	return client
}

/** Calls a tool that must succeed and returns its structured content. */
export async function callOk<T = any>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
	const result = await client.callTool({ name, arguments: args })
	if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`)
	return result.structuredContent as T
}

/** Calls a tool that must fail and returns its error text. */
export async function callError(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
	const result = await client.callTool({ name, arguments: args })
	if (!result.isError) throw new Error(`${name} succeeded: ${JSON.stringify(result.structuredContent)}`)
	expect(result.structuredContent).toBeUndefined()
	return (result.content as { type: string; text: string }[]).map((part) => part.text).join('\n')
}

/** Polls getDocument until the document is done (and its memories formed) or failed. */
export async function waitForDocument(client: Client, documentId: string, timeoutMs = 30_000) {
	const deadline = Date.now() + timeoutMs
	for (;;) {
		const { document } = await callOk(client, 'getDocument', { documentId })
		if (document.status === 'failed') throw new Error(`document ${documentId} failed: ${document.error}`)
		if (document.status === 'done' && document.dreamingStatus === 'done') return document
		if (Date.now() > deadline) throw new Error(`document ${documentId} stuck at ${document.status}`)
		await Bun.sleep(100)
	}
}
