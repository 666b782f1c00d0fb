import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { StartupError } from '../errors.ts'

/**
 * True while the process runs. A process killed with -9 stays in the process table as a zombie (state Z, or X while
 * it is being reaped) until its parent collects it; it holds nothing, so it counts as gone.
 */
export function processRuns(pid: number): boolean {
	try {
		process.kill(pid, 0)
	} catch (error) {
		// EPERM: the process exists but belongs to someone else.
		return (error as { code?: string }).code === 'EPERM'
	}
	const state = processState(pid)
	return state !== 'Z' && state !== 'X'
}

/** The state letter of /proc/<pid>/stat (R, S, D, Z, ...), or null where /proc is not available. */
function processState(pid: number): string | null {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
		// The command name (field 2) is in parentheses and may itself hold spaces and parentheses.
		return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) || null
	} catch {
		return null
	}
}

/**
 * The embedded database must be opened by one process at a time: a second writer would corrupt it.
 * A pid file guards it; a stale file left by a killed process is taken over.
 */
export function lockEmbeddedStore(dataDir: string): () => void {
	mkdirSync(dataDir, { recursive: true })
	const path = join(dataDir, 'memory.pid')
	let holder: number | null = null
	try {
		holder = Number(readFileSync(path, 'utf8').trim()) || null
	} catch {}
	if (holder && holder !== process.pid && processRuns(holder)) {
		throw new StartupError(
			`the embedded store in ${dataDir} is in use by process ${holder}; stop it first, or run the service on PostgreSQL (DATABASE_URL) to share a store between processes`,
		)
	}
	writeFileSync(path, String(process.pid))
	return () => rmSync(path, { force: true })
}
