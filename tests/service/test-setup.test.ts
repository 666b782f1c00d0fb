import { afterAll, describe, expect, it } from 'bun:test'
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = join(import.meta.dir, '..', '..')
const stubDir = mkdtempSync(join(tmpdir(), 'memory-test-setup-'))
const marker = join(stubDir, 'provisioned')
// A `bash` first on PATH that records being asked to provision PostgreSQL, and fails as a machine without it would.
writeFileSync(join(stubDir, 'bash'), `#!/bin/sh\necho "$@" >> ${marker}\necho 'no postgres here' >&2\nexit 1\n`)
chmodSync(join(stubDir, 'bash'), 0o755)

/** `bun test <file>` as a developer runs it: bunfig's preload, no TEST_DATABASE_URL. */
async function runTestFile(file: string) {
	rmSync(marker, { force: true })
	const { TEST_DATABASE_URL: _, MEMORY_TEST_POSTGRES: __, ...env } = process.env
	const proc = Bun.spawn([process.execPath, 'test', `./testkit/fixtures/test-runs/${file}`], {
		cwd: root,
		env: { ...env, PATH: `${stubDir}:${process.env.PATH ?? ''}` },
		stdout: 'pipe',
		stderr: 'pipe',
	})
	const output = (await new Response(proc.stderr).text()) + (await new Response(proc.stdout).text())
	return { code: await proc.exited, output, provisioned: existsSync(marker) }
}

describe('test setup', () => {
	afterAll(() => rmSync(stubDir, { recursive: true, force: true }))

	it('does not provision PostgreSQL for a test file without PostgreSQL suites', async () => {
		const run = await runTestFile('no-postgres.ts')
		expect(run.output).toContain('1 pass')
		expect(run.code).toBe(0)
		expect(run.provisioned).toBe(false)
	}, 60_000)

	it('provisions PostgreSQL when a suite first asks for a database, and says why it could not', async () => {
		const run = await runTestFile('needs-postgres.ts')
		expect(run.output).toContain('1 pass')
		expect(run.code).toBe(0)
		expect(run.provisioned).toBe(true)
	}, 60_000)
})
