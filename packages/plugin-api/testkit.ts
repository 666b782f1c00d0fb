/**
 * The connector author's test kit: `import { syncHarness } from '@memory-service/plugin-api/testkit'`.
 * `syncHarness` runs a connector's `sync` the way the runtime applies its events, without a service.
 */
export { eventsOf, type SyncHarness, syncHarness } from '../../testkit/connector-context.ts'
