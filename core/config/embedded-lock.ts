import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { StartupError } from '../errors.ts'

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0)
		return true
	} catch {
		return false
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
	if (holder && holder !== process.pid && alive(holder)) {
		throw new StartupError(
			`the embedded store in ${dataDir} is in use by process ${holder}; stop it first, or run the service on PostgreSQL (DATABASE_URL) to share a store between processes`,
		)
	}
	writeFileSync(path, String(process.pid))
	return () => rmSync(path, { force: true })
}
