import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { github } from '../../connectors/github/index.ts'
import type { GithubSettings } from '../../connectors/github/options.ts'
import type { SubscribeResult, Subscription } from '../../core/index.ts'
import { syncHarness } from '../../testkit/connector-context.ts'
import { type GithubEmulator, startGithubEmulator } from '../../testkit/emulators/github.ts'

const URL_BASE = 'https://memory.example/v3/connections/webhooks/github'

describe('GitHub connector: repository hooks', () => {
	let emulator: GithubEmulator
	beforeEach(() => {
		emulator = startGithubEmulator()
		emulator.createRepo('octo/a', { 'a.md': '# A' })
		emulator.createRepo('octo/b', { 'b.md': '# B' })
		emulator.createRepo('octo/c', { 'c.md': '# C' })
	})
	afterEach(() => emulator.stop())

	const subscribe = async (secret: string) => {
		const connector = github({ apiUrl: emulator.url, webUrl: emulator.url })
		const h = syncHarness<GithubSettings>({
			settings: {
				repositories: ['octo/a', 'octo/b', 'octo/c'].map((fullName, index) => ({
					id: index + 1,
					fullName,
					defaultBranch: 'main',
				})),
				includeCode: false,
				includeIssues: false,
			},
		})
		const token = emulator.accessToken()
		h.ctx.accessToken = async () => token
		const made = await connector.webhook!.subscribe!(h.ctx, { url: URL_BASE, secret })
		return Array.isArray(made) ? { subscriptions: made as Subscription[], failures: [] } : (made as SubscribeResult)
	}

	it('makes hooks one repository at a time: one that refuses does not turn off the others', async () => {
		emulator.setAdmin('octo/b', false)
		const { subscriptions, failures } = await subscribe('s1')
		expect(subscriptions.map((subscription) => subscription.data?.repository)).toEqual(['octo/a', 'octo/c'])
		expect(failures).toEqual([{ scope: 'octo/b', error: expect.stringContaining('admin rights') }])
		expect(emulator.hooks('octo/a')).toHaveLength(1)
		expect(emulator.hooks('octo/c')).toHaveLength(1)
	})

	it('adopts a hook it left before at the same URL (422 "Hook already exists") with the new secret', async () => {
		const first = await subscribe('old secret')
		const again = await subscribe('new secret')
		expect(again.failures).toEqual([])
		expect(again.subscriptions.map((subscription) => subscription.externalId)).toEqual(
			first.subscriptions.map((subscription) => subscription.externalId),
		)
		expect(emulator.hooks('octo/a')).toHaveLength(1)
		expect(emulator.hooks('octo/a')[0]!.secret).toBe('new secret')
	})

	it('answers the ping GitHub sends when a hook is created, before the hook is stored', () => {
		const connector = github({ apiUrl: emulator.url, webUrl: emulator.url })
		const ping = connector.webhook!.handshake!({
			headers: new Headers({ 'x-github-event': 'ping', 'x-github-hook-id': '12345' }),
			body: '{"zen":"Keep it logically awesome."}',
			query: new URLSearchParams(),
		})
		expect(ping?.status).toBe(200)
		const push = connector.webhook!.handshake!({
			headers: new Headers({ 'x-github-event': 'push' }),
			body: '{}',
			query: new URLSearchParams(),
		})
		expect(push).toBeNull()
	})
})
