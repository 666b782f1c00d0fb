import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { run, spawnServer } from '../../testkit/process.ts'

const keys = (args: string[], env: Record<string, string>) =>
	run([process.execPath, 'server/cli/keys.ts', ...args], env)

describe('keys CLI and first start', () => {
	const dataDir = mkdtempSync(join(tmpdir(), 'memory-keys-'))
	const env = { MEMORY_DATA_DIR: dataDir }
	afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

	it('prints one key on the first start of an empty store, and none on the next', async () => {
		const first = await spawnServer(env)
		expect(first.firstKey).toMatch(/^sm_[0-9A-Za-z]{40}$/)
		const health = await fetch(`${first.url}/v3/documents/list`, {
			method: 'POST',
			headers: { authorization: `Bearer ${first.firstKey}`, 'content-type': 'application/json' },
			body: '{}',
		})
		expect(health.status).toBe(200)
		await first.kill()
		const second = await spawnServer(env)
		expect(second.firstKey).toBeNull()
		await second.kill()
	}, 60_000)

	it('creates a key (and a new organization) with the key on the last line, lists and revokes it', async () => {
		const created = await keys(['create', '--name', 'ci', '--org', 'acme'], env)
		expect(created.code).toBe(0)
		const key = created.stdout.trim().split('\n').at(-1)!
		expect(key).toMatch(/^sm_[0-9A-Za-z]{40}$/)
		expect(created.stdout).toContain('Created organization "acme"')

		const listed = await keys(['list'], env)
		expect(listed.stdout).toContain('org=acme')
		expect(listed.stdout).not.toContain(key)
		const id = listed.stdout
			.split('\n')
			.find((line) => line.includes('org=acme'))!
			.split(/\s+/)[0]!

		const second = await keys(['create', '--name', 'ci-2', '--org', 'acme'], env)
		const secondKey = second.stdout.trim().split('\n').at(-1)!
		expect(second.stdout).not.toContain('Created organization')

		const revoked = await keys(['revoke', id], env)
		expect(revoked.code).toBe(0)
		expect((await keys(['revoke', id], env)).code).toBe(1)

		const server = await spawnServer(env)
		const status = async (k: string) =>
			(
				await fetch(`${server.url}/v3/documents/list`, {
					method: 'POST',
					headers: { authorization: `Bearer ${k}` },
					body: '{}',
				})
			).status
		expect(await status(key)).toBe(401)
		expect(await status(secondKey)).toBe(200)
		await server.kill()
	}, 60_000)

	it('explains its usage and refuses to open an embedded store another process holds', async () => {
		const usage = await keys(['create'], env)
		expect(usage.code).toBe(2)
		expect(usage.stderr).toContain('--name')
		const server = await spawnServer(env)
		const blocked = await keys(['list'], env)
		expect(blocked.code).toBe(1)
		expect(blocked.stderr).toContain('in use by process')
		await server.kill()
	}, 60_000)
})
