/**
 * Run by queue-recovery.test.ts in a process of its own, to be killed: opens the embedded store at argv[2], sends one
 * job with singleton key `held` to a stately queue and works it without ever finishing, then prints `held` once the
 * queue's statistics (pg-boss's monitor) list the key as active: what a process killed mid-job leaves behind.
 */
import { openJobQueue } from '../../core/jobs/queue.ts'
import { createLogger } from '../../core/logger.ts'
import { storagePostgres } from '../../plugins/storage-postgres/index.ts'
import { context } from '../contract/storage.contract.ts'
import { HELD_QUEUE, HELD_QUEUE_POLICY } from '../queue-hold.ts'

const storage = storagePostgres({ dataDir: process.argv[2]! })
await storage.init?.(context())
const database = storage.jobDatabase()
if (database.kind !== 'executor') throw new Error('an embedded store was expected')
const queue = await openJobQueue(database, createLogger('warn'), { heartbeat: false })
await queue.define(HELD_QUEUE, HELD_QUEUE_POLICY)
await queue.send(HELD_QUEUE, { n: 1 }, { singletonKey: 'held' })
await queue.work(HELD_QUEUE, { concurrency: 1 }, () => new Promise<void>(() => {}))
for (;;) {
	const { rows } = await database.executeSql('SELECT singletons_active FROM pgboss.queue WHERE name = $1', [HELD_QUEUE])
	if ((rows[0] as { singletons_active: string[] | null } | undefined)?.singletons_active?.includes('held')) break
	await Bun.sleep(200)
}
console.log('held')
