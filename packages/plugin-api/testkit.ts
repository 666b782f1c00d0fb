/**
 * The connector author's test kit: `import { connectorConformance } from '@memory-service/plugin-api/testkit'`.
 * - `connectorConformance` runs the runtime's guarantees (full and incremental sync, unchanged items skipped, item
 *   failures retried, rate limits waited out, incomplete listings deleting nothing, 401 refreshed once, revoked grants,
 *   the organization's own OAuth application, kill -9 resume, documentLimit, tenant isolation) against a connector
 *   and its emulator, through a real service (and, for kill -9, real server processes);
 * - `faultLayer` and `providerRateLimit` make an emulator fail the way providers do; `redeemCode` exchanges an
 *   OAuth authorization code the way providers check it;
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
export { type CodeRefusals, type IssuedCode, redeemCode } from '../../testkit/emulators/oauth-code.ts'
export { type ServiceClient, startTestService, type TestService } from '../../testkit/service.ts'
