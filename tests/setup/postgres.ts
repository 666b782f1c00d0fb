/**
 * Test preload: when no TEST_DATABASE_URL is given, start a throwaway PostgreSQL with pgvector (installing it first
 * when missing, via .ci/postgres.sh) so `bun run test` covers both storage drivers on its own. Stopped after the run.
 * MEMORY_TEST_POSTGRES=skip opts out; the PostgreSQL suites then show as skipped.
 */
import { afterAll } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = join(import.meta.dir, '..', '..')
const script = join(root, '.ci', 'postgres.sh')

if (!process.env.TEST_DATABASE_URL && process.env.MEMORY_TEST_POSTGRES !== 'skip') {
	const env = { ...process.env, PGCI_DIR: mkdtempSync(join(tmpdir(), 'memory-test-pg-')) }
	const started = Bun.spawnSync(['bash', script, 'start'], { cwd: root, env, stderr: 'pipe' })
	const line = started.stdout.toString().trim()
	if (started.exitCode === 0 && line.startsWith('export TEST_DATABASE_URL=')) {
		process.env.TEST_DATABASE_URL = line.slice('export TEST_DATABASE_URL='.length)
		afterAll(() => {
			Bun.spawnSync(['bash', script, 'stop'], { cwd: root, env })
		})
	} else {
		const reason = started.stderr.toString().trim().split('\n').slice(-3).join('\n')
		console.warn(
			`No PostgreSQL for the tests, so its suites are skipped (set TEST_DATABASE_URL to use one):\n${reason}`,
		)
	}
}
