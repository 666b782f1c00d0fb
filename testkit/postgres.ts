import { beforeAll, describe } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'

/** MEMORY_TEST_POSTGRES=skip leaves the PostgreSQL suites out (they show as skipped); otherwise they run. */
export const POSTGRES_SUITES = process.env.MEMORY_TEST_POSTGRES !== 'skip'

const root = join(import.meta.dir, '..')
const script = join(root, '.ci', 'postgres.sh')

/**
 * A PostgreSQL suite: skipped with MEMORY_TEST_POSTGRES=skip; otherwise its first hook gets the server (provisioning
 * takes a while the first time, longer than a hook's default timeout).
 */
export function describePostgres(label: string, suite: () => void) {
	describe.skipIf(!POSTGRES_SUITES)(label, () => {
		beforeAll(async () => {
			await testDatabaseUrl()
		}, 600_000)
		suite()
	})
}

let provisioned: Promise<string> | null = null
let stopProvisioned: (() => void) | null = null

/**
 * The test server's URL: TEST_DATABASE_URL, or else a throwaway PostgreSQL with pgvector started (installed first
 * when missing, via .ci/postgres.sh) on the first call, so only runs that reach a PostgreSQL suite pay for it.
 */
export function testDatabaseUrl(): Promise<string> {
	if (process.env.TEST_DATABASE_URL) return Promise.resolve(process.env.TEST_DATABASE_URL)
	provisioned ??= provision()
	return provisioned
}

/** Stops the server testDatabaseUrl() started, if any (the test preload calls it after the run). */
export function stopProvisionedPostgres() {
	stopProvisioned?.()
	stopProvisioned = null
}

async function provision(): Promise<string> {
	const env = { ...process.env, PGCI_DIR: mkdtempSync(join(tmpdir(), 'memory-test-pg-')) }
	const started = Bun.spawn(['bash', script, 'start'], { cwd: root, env, stdout: 'pipe', stderr: 'pipe' })
	const [out, err, code] = await Promise.all([
		new Response(started.stdout).text(),
		new Response(started.stderr).text(),
		started.exited,
	])
	const line = out.trim()
	if (code !== 0 || !line.startsWith('export TEST_DATABASE_URL=')) {
		const reason = err.trim().split('\n').slice(-3).join('\n')
		throw new Error(
			`No PostgreSQL for the PostgreSQL suites (set TEST_DATABASE_URL, or MEMORY_TEST_POSTGRES=skip):\n${reason}`,
		)
	}
	stopProvisioned = () => Bun.spawnSync(['bash', script, 'stop'], { cwd: root, env })
	return line.slice('export TEST_DATABASE_URL='.length)
}

/** A fresh database on the test server, dropped by `drop()`. */
export async function createTestDatabase(prefix = 'memtest'): Promise<{ url: string; drop: () => Promise<void> }> {
	const serverUrl = await testDatabaseUrl()
	const name = `${prefix}_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`
	const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
	await admin.unsafe(`CREATE DATABASE ${name}`)
	await admin.end()
	const url = new URL(serverUrl)
	url.pathname = `/${name}`
	return {
		url: url.toString(),
		async drop() {
			const cleanup = postgres(serverUrl, { max: 1, onnotice: () => {} })
			await cleanup.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
			await cleanup.end()
		},
	}
}
