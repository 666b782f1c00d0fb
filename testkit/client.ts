import Supermemory from 'supermemory'
import { type Driver, startTestService, type TestService } from './service.ts'

/** A real service listening on a loopback port, and the published client pointed at it. */
export interface ClientHarness {
	t: TestService
	client: Supermemory
	/** Polls a document through the client until it is done or failed. */
	waitDone(id: string): Promise<Awaited<ReturnType<Supermemory['documents']['get']>>>
	stop(): Promise<void>
}

export async function startClientHarness(
	driver: Driver,
	options: Parameters<typeof startTestService>[1] = {},
): Promise<ClientHarness> {
	const t = await startTestService(driver, options)
	const server = t.service.app!.listen({ port: 0, hostname: '127.0.0.1' })
	const client = new Supermemory({ baseURL: `http://127.0.0.1:${server.server!.port}`, apiKey: t.key, maxRetries: 0 })
	return {
		t,
		client,
		async waitDone(id) {
			for (let i = 0; i < 400; i++) {
				const document = await client.documents.get(id)
				if (document.status === 'done' || document.status === 'failed') return document
				await Bun.sleep(50)
			}
			throw new Error(`document ${id} did not finish`)
		},
		async stop() {
			await server.stop()
			await t.stop()
		},
	}
}

/** The client's APIPromise is a thenable, not a Promise: await it to see how it fails. */
export async function failure(call: PromiseLike<unknown>): Promise<unknown> {
	try {
		await call
	} catch (error) {
		return error
	}
	throw new Error('the call succeeded')
}
