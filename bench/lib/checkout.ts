import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BenchStore } from './store.ts'

/** The short commit a checkout is at. */
export function commitOf(root: string): string {
	const result = Bun.spawnSync(['git', '-C', root, 'rev-parse', '--short', 'HEAD'])
	return result.stdout.toString().trim() || 'unknown'
}

/**
 * An API key on a fresh store, made by the checkout's own code (its migrations, its key format), in a process of
 * its own so the embedded store is closed again before the server opens it.
 */
export function prepareKey(root: string, store: BenchStore): string {
	const script = join(store.dataDir, 'prepare-key.ts')
	writeFileSync(
		script,
		`import { prepareStore } from ${JSON.stringify(join(root, 'bench/lib/store.ts'))}
const store = JSON.parse(process.env.BENCH_STORE!)
const { key } = await prepareStore(store)
console.log(key)`,
	)
	const result = Bun.spawnSync([process.execPath, script], {
		cwd: root,
		env: { ...process.env, BENCH_STORE: JSON.stringify(store) },
	})
	if (result.exitCode !== 0) throw new Error(`preparing the store of ${root} failed:\n${result.stderr.toString()}`)
	return result.stdout.toString().trim().split('\n').at(-1)!
}
