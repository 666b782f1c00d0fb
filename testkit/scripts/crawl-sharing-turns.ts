/**
 * Run by web-crawler-pacing.test.ts, twice at once, each in its own process (as two workers of one service): crawls
 * the start URL with the web crawler, its per-host pacing kept in the PostgreSQL store at DATABASE_URL as the runtime
 * wires it (SyncContext.turns over the store's shared turns). Prints the number of documents imported.
 */
import { webCrawler } from '../../connectors/web-crawler/index.ts'
import { randomBase62 } from '../../core/ids.ts'
import { storagePostgres } from '../../plugins/storage-postgres/index.ts'
import { syncHarness } from '../connector-context.ts'
import { context } from '../contract/storage.contract.ts'

const [databaseUrl, startUrl] = [process.env.DATABASE_URL!, process.argv[2]!]
const storage = storagePostgres({ databaseUrl })
await storage.init?.(context())
const owner = `process-${randomBase62(8)}`
const sync = syncHarness({ metadata: { startUrl } })
sync.ctx.turns = {
	take: (key, holdMs, gapMs) => storage.connections.takeTurn(key, owner, holdMs, gapMs),
	end: (key, nextInMs) => storage.connections.endTurn(key, owner, nextInMs),
}
await sync.run(webCrawler({ urlAllowlist: ['127.0.0.1'], delayMs: 0 }).sync)
console.log(JSON.stringify({ documents: sync.documents.size }))
await storage.close?.()
