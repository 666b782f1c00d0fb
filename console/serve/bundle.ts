import { join } from 'node:path'
import type { Logger } from '../../core/logger.ts'

const ENTRY = join(import.meta.dir, '../index.html')
export const CONSOLE_PATH = '/console/'

export interface ConsoleAsset {
	name: string
	body: Blob
	type: string
	etag: string
	/** Hashed file names never change content, so browsers may keep them for good; the page itself is revalidated. */
	immutable: boolean
}

/**
 * The console's front end bundled by Bun's bundler on the first request and kept in memory: nothing is built ahead,
 * nothing is written to disk, nothing is fetched from elsewhere. `rebuild: true` bundles on every request
 * (MEMORY_CONSOLE_DEV=1, for working on the console).
 */
export function createConsoleBundle(options: { logger?: Logger; rebuild?: boolean } = {}) {
	let built: Promise<Map<string, ConsoleAsset>> | null = null

	async function build(): Promise<Map<string, ConsoleAsset>> {
		const started = performance.now()
		const result = await Bun.build({ entrypoints: [ENTRY], minify: true, publicPath: CONSOLE_PATH, target: 'browser' })
		if (!result.success) throw new Error(`console bundle failed: ${result.logs.map(String).join('\n')}`)
		const assets = new Map<string, ConsoleAsset>()
		for (const output of result.outputs) {
			const name = output.path.replace(/^\.\//, '')
			assets.set(name, {
				name,
				body: output,
				type: output.type,
				etag: `"${output.hash ?? Bun.hash(await output.arrayBuffer()).toString(36)}"`,
				immutable: name !== 'index.html',
			})
		}
		options.logger?.info('console bundled', {
			files: assets.size,
			ms: Math.round(performance.now() - started),
		})
		return assets
	}

	return {
		/** Every file of the bundle, by name (`index.html`, `chunk-<hash>.js`, `chunk-<hash>.css`). */
		assets(): Promise<Map<string, ConsoleAsset>> {
			if (options.rebuild) return build()
			built ??= build().catch((error) => {
				built = null
				throw error
			})
			return built
		},
	}
}

export type ConsoleBundle = ReturnType<typeof createConsoleBundle>
