import { createReadStream } from 'node:fs'
import { mkdir, open, rename, rm, stat } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { Readable } from 'node:stream'
import { FILE_KEY_PATTERN, type FilesPlugin, PLUGIN_API_VERSION, StartupError } from '../../core/index.ts'

export interface FilesLocalOptions {
	/** The folder that holds the files; created when missing. */
	dir: string
}

/** Original files on the local filesystem, one file per key under `dir` (the key's segments are folders). */
export function filesLocal(options: FilesLocalOptions): FilesPlugin {
	const root = resolve(options.dir)
	const pathOf = (key: string) => {
		if (!FILE_KEY_PATTERN.test(key)) throw new Error(`files-local: invalid file key "${key}"`)
		return join(root, key)
	}
	const missing = (error: unknown) => (error as { code?: string }).code === 'ENOENT'

	return {
		apiVersion: PLUGIN_API_VERSION,
		kind: 'files',
		name: 'files-local',

		async init() {
			try {
				await mkdir(root, { recursive: true })
			} catch (error) {
				throw new StartupError(`files-local cannot use ${root}: ${(error as Error).message}`)
			}
		},

		async put(key, data) {
			const path = pathOf(key)
			await mkdir(dirname(path), { recursive: true })
			// Written beside the target and renamed over it, so a reader never sees half a file.
			const partial = `${path}.${crypto.randomUUID()}.partial`
			const handle = await open(partial, 'w')
			try {
				if (data instanceof Uint8Array) await handle.write(data)
				else for await (const chunk of data) await handle.write(chunk)
				await handle.sync()
			} catch (error) {
				await handle.close()
				await rm(partial, { force: true })
				throw error
			}
			await handle.close()
			await rename(partial, path)
		},

		async get(key) {
			try {
				return new Uint8Array(await Bun.file(pathOf(key)).arrayBuffer())
			} catch (error) {
				if (missing(error)) return null
				throw error
			}
		},

		async stream(key) {
			const path = pathOf(key)
			try {
				const { size } = await stat(path)
				const body = Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>
				return { body, size }
			} catch (error) {
				if (missing(error)) return null
				throw error
			}
		},

		async delete(key) {
			await rm(pathOf(key), { force: true })
		},
	}
}
