import { expect } from 'bun:test'
import { followAuthLink } from './connections.ts'
import { run, type ServerProcess, spawnServer } from './process.ts'

type Call = (path: string, init?: { method?: string; body?: unknown }) => Promise<{ status: number; body: any }>

export interface CrashSyncOptions {
	provider: string
	containerTag: string
	/** Items at the provider: all of them must be imported once in the end. */
	total: number
	/** Items imported before the server is killed (at least; fewer than `total`). */
	importedBeforeKill: number
	/** After the connection is authorized: what starts its sync when authorizing does not (GitHub's configure). */
	afterAuthorize?: (call: Call, id: string) => Promise<void>
	/** Right after kill -9: the test reads the emulator's counters here. */
	killed?: () => void
}

/**
 * A connector sync across kill -9 of a real server process: connect through the provider's emulator, wait until some
 * items are imported, kill the server, start it again on the same store, and wait for the sync to complete. Checks
 * that a run was interrupted and that every item was imported exactly once; returns what the test checks further.
 */
export function crashSync(env: Record<string, string>) {
	let server: ServerProcess | null = null
	return {
		stop: async () => {
			await server?.kill()
		},
		async run(options: CrashSyncOptions) {
			const { provider, containerTag, total } = options
			server = await spawnServer(env)
			// A PostgreSQL store prints no first key: one is made with the keys command.
			const key =
				server.firstKey ??
				(await run([process.execPath, 'server/cli/keys.ts', 'create', '--name', 'crash'], env)).stdout
					.trim()
					.split('\n')
					.at(-1)!
			const call: Call = async (path, init = {}) => {
				const response = await fetch(`${server!.url}${path}`, {
					method: init.method ?? 'GET',
					headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
					body: init.body === undefined ? undefined : JSON.stringify(init.body),
				})
				return { status: response.status, body: (await response.json()) as any }
			}
			const created = await call(`/v3/connections/${provider}`, { method: 'POST', body: { containerTag } })
			expect(created.status).toBe(200)
			const landed = await followAuthLink(created.body.authLink)
			expect(await landed.json()).toMatchObject({ success: true, connectionId: created.body.id })
			const id = created.body.id as string
			await options.afterAuthorize?.(call, id)
			const imported = async () =>
				(
					await call(`/v3/connections/${provider}/documents`, {
						method: 'POST',
						body: { containerTags: [containerTag] },
					})
				).body.length as number
			for (let i = 0; i < 600 && (await imported()) < options.importedBeforeKill; i++) await Bun.sleep(20)
			const before = await imported()
			expect(before).toBeGreaterThanOrEqual(options.importedBeforeKill)
			expect(before).toBeLessThan(total)
			await server.kill('SIGKILL')
			options.killed?.()

			server = await spawnServer(env)
			let connection: any
			for (let i = 0; i < 1200; i++) {
				connection = (await call(`/v3/connections/${id}`)).body
				if (connection.lastSyncRun?.status === 'completed') break
				await Bun.sleep(50)
			}
			expect(connection.lastSyncRun.status).toBe('completed')
			const runs = (await call(`/v3/connections/${id}/sync-runs`)).body.syncRuns
			expect(runs.some((run: { status: string }) => run.status === 'interrupted')).toBe(true)
			expect(await imported()).toBe(total)
			const listed = await call('/v3/documents/list', {
				method: 'POST',
				body: { containerTags: [containerTag], limit: 200 },
			})
			expect(listed.body.pagination.totalItems).toBe(total)
			return { before, connection }
		},
	}
}
