/**
 * Processor time the whole machine has spent busy since boot (every process: the server, PostgreSQL, the bench
 * itself), in seconds, from /proc/stat; null where there is none. Throughput on a shared two-core machine varies
 * from run to run with what else runs. The processor time a document costs varies less in a quiet hour (5-10%), so
 * it shows whether a change made the work cheaper when the docs/s of two runs overlap; a noisy host moves it too
 * (identical code read 14 to 21 ms per document in one day), so compare interleaved runs.
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

/** Processor time one process has spent (user and system, all its threads), in seconds; null where there is none. */
export async function processBusySeconds(pid: number): Promise<number | null> {
	try {
		const stat = await Bun.file(`/proc/${pid}/stat`).text()
		// The command name (field 2) may hold spaces; utime and stime are fields 14 and 15.
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
		return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND
	} catch {
		return null
	}
}
