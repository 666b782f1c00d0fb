/**
 * Processor time the whole machine has spent busy since boot (every process: the server, PostgreSQL, the bench
 * itself), in seconds, from /proc/stat; null where there is none. Throughput on a shared two-core machine varies
 * from run to run with what else runs; the processor time a document costs varies much less, so it shows whether
 * a change made the work cheaper even when the docs/s of two runs overlap.
 */
export async function machineBusySeconds(): Promise<number | null> {
	try {
		const [line] = (await Bun.file('/proc/stat').text()).split('\n', 1)
		// cpu user nice system idle iowait irq softirq steal ...: everything but idle and iowait is busy.
		const ticks = line!.trim().split(/\s+/).slice(1).map(Number)
		const busy = ticks.reduce((sum, value, i) => (i === 3 || i === 4 ? sum : sum + value), 0)
		return busy / CLOCK_TICKS_PER_SECOND
	} catch {
		return null
	}
}

/** USER_HZ: /proc/stat counts in these on every Linux architecture Bun runs on. */
const CLOCK_TICKS_PER_SECOND = 100
