import { stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { decodeCache, InvalidCacheError, type WordVectorTable } from './cache-format.ts'
import { CACHE_FORMAT_VERSION, MODEL_PACKAGE, SPACE_ID } from './method.ts'

const BUILD_SCRIPT = join(import.meta.dir, 'build-cache.ts')

export interface CacheSource {
	/** The package's JSON file. */
	jsonPath: string
	/** Changes whenever the cache built from this source would differ. */
	fingerprint: string
}

export interface LoadedCache {
	table: WordVectorTable
	path: string
	bytes: number
	/** `cache` when an existing file was valid, `built` when it was (re)built first. */
	origin: 'cache' | 'built'
	/** Why an existing cache was not used, when it was not. */
	rebuildReason?: string
}

export async function locateSource(): Promise<CacheSource> {
	const packageJsonPath = Bun.resolveSync(`${MODEL_PACKAGE}/package.json`, import.meta.dir)
	const manifest = (await Bun.file(packageJsonPath).json()) as { version: string; main: string }
	const jsonPath = join(dirname(packageJsonPath), manifest.main)
	const { size } = await stat(jsonPath)
	return {
		jsonPath,
		fingerprint: `${SPACE_ID}|format-${CACHE_FORMAT_VERSION}|${MODEL_PACKAGE}@${manifest.version}|${size}`,
	}
}

export function cacheFilePath(cacheDir: string): string {
	return join(cacheDir, `${SPACE_ID.replaceAll(':', '-')}.bin`)
}

/** Loads the cache, building it in a child process first when it is missing, stale, truncated or corrupt. */
export async function loadOrBuildCache(cacheDir: string, source: CacheSource): Promise<LoadedCache> {
	const path = cacheFilePath(cacheDir)
	const existing = await readCache(path, source.fingerprint)
	if ('table' in existing) return { ...existing, path, origin: 'cache' }
	await runBuilder(source, path)
	const built = await readCache(path, source.fingerprint)
	if ('reason' in built)
		throw new Error(`the word-vector cache at ${path} is unusable right after building it: ${built.reason}`)
	return { ...built, path, origin: 'built', rebuildReason: existing.reason }
}

async function readCache(
	path: string,
	fingerprint: string,
): Promise<{ table: WordVectorTable; bytes: number } | { reason: string }> {
	const file = Bun.file(path)
	if (!(await file.exists())) return { reason: 'missing' }
	const bytes = new Uint8Array(await file.arrayBuffer())
	try {
		return { table: decodeCache(bytes, fingerprint), bytes: bytes.length }
	} catch (error) {
		if (error instanceof InvalidCacheError) return { reason: error.message }
		throw error
	}
}

async function runBuilder(source: CacheSource, path: string): Promise<void> {
	const child = Bun.spawn([process.execPath, BUILD_SCRIPT, source.jsonPath, path, source.fingerprint], {
		stdin: 'ignore',
		stdout: 'ignore',
		stderr: 'pipe',
	})
	const [exitCode, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()])
	if (exitCode !== 0) {
		throw new Error(`building the word-vector cache ${path} failed (exit ${exitCode}): ${stderr.trim().slice(-2000)}`)
	}
}
