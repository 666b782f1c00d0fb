import { randomBase62 } from '../ids.ts'
import type { ConnectorDeps } from './deps.ts'

/** This process's name as a lease owner. */
const PROCESS_OWNER = `process-${randomBase62(12)}`

/**
 * The connection's sync lease for one run: one run per connection at a time, across processes, queue retries and job
 * expiry. A heartbeat extends it while the run works; a run that dies with its process gives it up when it lapses.
 * Null when another run holds it.
 */
export async function takeLease(deps: ConnectorDeps, connectionId: string, leaseSeconds: number) {
	const owner = `${PROCESS_OWNER}:${randomBase62(8)}`
	const until = () => new Date(Date.now() + leaseSeconds * 1000).toISOString()
	if (!(await deps.storage.connections.takeSyncLease(connectionId, owner, until()))) return null
	let lost = false
	const beat = setInterval(
		() => {
			deps.storage.connections
				.takeSyncLease(connectionId, owner, until())
				.then((held) => {
					if (!held) lost = true
				})
				.catch((error) => deps.logger.warn('could not extend the sync lease', { connectionId, error: String(error) }))
		},
		Math.max(250, (leaseSeconds * 1000) / 3),
	)
	return {
		/** Another run took over (this one's heartbeat lapsed): stop. */
		lost: () => lost,
		async release(): Promise<void> {
			clearInterval(beat)
			await deps.storage.connections.releaseSyncLease(connectionId, owner)
		},
	}
}

/** How long until a lease held by another run lapses at the latest (when to try again). */
export const leaseRetrySeconds = (leaseSeconds: number) => leaseSeconds + 1
