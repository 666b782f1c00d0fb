import { describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type JobQueue, openJobQueue } from '../../core/jobs/queue.ts'
import { createLogger } from '../../core/logger.ts'
import { storagePostgres } from '../../plugins/storage-postgres/index.ts'
import { context } from '../../testkit/contract/storage.contract.ts'
import { HELD_QUEUE, HELD_QUEUE_POLICY } from '../../testkit/queue-hold.ts'

const ROOT = join(import.meta.dir, '..', '..')

describe('job queue after a kill -9 (embedded store)', () => {
	it('runs the next job of a key a killed process held within seconds of the restart', async () => {
		const dataDir = mkdtempSync(join(tmpdir(), 'queue-recovery-'))
		const storage = storagePostgres({ dataDir })
		let queue: JobQueue | null = null
		// A process works a job of key `held` and is killed once the queue's statistics list the key as active.
		const holder = Bun.spawn([process.execPath, join(ROOT, 'testkit/scripts/queue-hold-job.ts'), dataDir], {
			cwd: ROOT,
			stdout: 'pipe',
			stderr: 'inherit',
		})
		try {
			const { value } = await holder.stdout.getReader().read()
			expect(new TextDecoder().decode(value)).toContain('held')
			holder.kill('SIGKILL')
			await holder.exited

			await storage.init?.(context())
			queue = await openJobQueue(storage.jobDatabase(), createLogger('warn'), { heartbeat: false })
			expect(await queue.recoverOrphans()).toBe(1)
			await queue.define(HELD_QUEUE, HELD_QUEUE_POLICY)
			const started = Date.now()
			let ran: (ms: number) => void = () => {}
			const running = new Promise<number>((resolve) => {
				ran = resolve
			})
			await queue.work(HELD_QUEUE, { concurrency: 1 }, async () => ran(Date.now() - started))
			// As a restarted service queues the sync of a connection whose run the kill interrupted.
			await queue.send(HELD_QUEUE, { n: 2 }, { singletonKey: 'held' })
			const waited = await Promise.race([running, Bun.sleep(30_000).then(() => Number.POSITIVE_INFINITY)])
			expect(waited).toBeLessThan(15_000)
		} finally {
			holder.kill('SIGKILL')
			await queue?.stop()
			await storage.close?.()
			rmSync(dataDir, { recursive: true, force: true })
		}
	}, 90_000)
})
