/**
 * Processor time the whole machine has spent busy since boot (every process: the server, PostgreSQL, the bench
 * itself), in seconds, from /proc/stat; null where there is none. Throughput on a shared two-core machine varies
 * from run to run with what else runs; the processor time a document costs varies much less, so it shows whether
 * a change made the work cheaper even when the docs/s of two runs overlap.
 */
export async function machineBusySeconds(): Promise<number | null> {
	try {
		const [line] = (await Bun.file('/proc/stat').text()).split('\n', 1)
		// cpu user nice system idle iowait irq softirq steal guest guest_nice: busy is user, nice, system, irq and
		// softirq. Steal is time a virtual machine's host gave to others; guest time is counted in user already.
		const [user, nice, system, , , irq, softirq] = line!.trim().split(/\s+/).slice(1).map(Number)
		const busy = (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0)
		return busy / CLOCK_TICKS_PER_SECOND
	} catch {
		return null
	}
}

/** USER_HZ: /proc/stat counts in these on every Linux architecture Bun runs on. */
const CLOCK_TICKS_PER_SECOND = 100
