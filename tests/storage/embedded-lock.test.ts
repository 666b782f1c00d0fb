import { afterEach, describe, expect, it } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { lockEmbeddedStore, processRuns } from '../../core/config/embedded-lock.ts'

/**
 * A killed process whose parent has not collected it yet: `sh` starts `sleep 0.05` in the background and replaces
 * itself with a `sleep` that never waits for children, so the short sleep ends as a zombie. Returns its pid and a
 * function that ends the parent (which lets init reap the zombie).
 */
async function zombie(): Promise<{ pid: number; end: () => void }> {
	const parent = Bun.spawn(['sh', '-c', 'sleep 0.05 & echo $!; exec sleep 30'], { stdout: 'pipe' })
	const reader = parent.stdout.getReader()
	const { value } = await reader.read()
	reader.releaseLock()
	const pid = Number(new TextDecoder().decode(value).trim())
	for (let i = 0; i < 100; i++) {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
		if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) break
		await Bun.sleep(20)
	}
	return { pid, end: () => parent.kill(9) }
}

describe('embedded store lock', () => {
	const dirs: string[] = []
	const dataDir = () => {
		const dir = mkdtempSync(join(tmpdir(), 'memory-lock-'))
		dirs.push(dir)
		return dir
	}
	afterEach(() => {
		for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
	})

	it('takes over a lock whose holder was killed but not yet reaped (a zombie)', async () => {
		const { pid, end } = await zombie()
		try {
			expect(readFileSync(`/proc/${pid}/stat`, 'utf8')).toContain(') Z')
			expect(processRuns(pid)).toBe(false)
			const dir = dataDir()
			writeFileSync(join(dir, 'memory.pid'), String(pid))
			const unlock = lockEmbeddedStore(dir)
			expect(readFileSync(join(dir, 'memory.pid'), 'utf8')).toBe(String(process.pid))
			unlock()
		} finally {
			end()
		}
	})

	it('refuses a lock held by a running process', async () => {
		const holder = Bun.spawn(['sleep', '30'])
		try {
			const dir = dataDir()
			writeFileSync(join(dir, 'memory.pid'), String(holder.pid))
			expect(processRuns(holder.pid)).toBe(true)
			expect(() => lockEmbeddedStore(dir)).toThrow(`in use by process ${holder.pid}`)
		} finally {
			holder.kill(9)
		}
	})

	it('takes over a lock whose holder is gone', async () => {
		const holder = Bun.spawn(['true'])
		await holder.exited
		const dir = dataDir()
		writeFileSync(join(dir, 'memory.pid'), String(holder.pid))
		lockEmbeddedStore(dir)()
	})
})
