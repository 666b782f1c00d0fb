/**
 * The connector author's test kit: `import { connectorConformance } from '@memory-service/plugin-api/testkit'`.
 * - `connectorConformance` runs the runtime's guarantees (full and incremental sync, unchanged items skipped, item
 *   failures retried, rate limits waited out, incomplete listings deleting nothing, 401 refreshed once, revoked grants,
 *   kill -9 resume, documentLimit, tenant isolation) against a connector and its emulator, through a real service;
 * - `faultLayer` and `providerRateLimit` make an emulator fail the way providers do;
 * - `syncHarness` runs a connector's `sync` the way the runtime applies its events, without a service;
 * - `startTestService` starts a real service in-process, with extra plugins.
 */
export {
	type ConformanceEmulator,
	type ConformanceOptions,
	connectorConformance,
} from '../../testkit/connector-conformance/index.ts'
export { eventsOf, type SyncHarness, syncHarness } from '../../testkit/connector-context.ts'
export { type FaultLayer, type Faults, faultLayer, providerRateLimit } from '../../testkit/emulators/faults.ts'
export { startTestService, type TestService } from '../../testkit/service.ts'
