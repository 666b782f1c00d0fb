import { readdir, readFile, stat } from 'node:fs/promises'
import { basename, join, relative } from 'node:path'
import { defineConnector, type SyncEvent } from '@memory-service/plugin-api'

/**
 * An example third-party connector: the files of a folder on the server. It shows the whole contract in one file: no
 * authorization (`auth: none`), a schedule, versions to skip unchanged files, Markdown and text as text, every other
 * file as bytes for the service's file ingestion (which refuses unsupported types item by item), and a full listing
 * (`present`) from which core deletes what disappeared, as the folder has no deletion signal.
 */
export interface FolderOptions {
	/** The folder to import (the operator's choice: users of the API cannot point it elsewhere). */
	root: string
	/** Provider id; default `folder`. */
	provider?: string
	/** Hours between scheduled syncs; default 1. */
	everyHours?: number
}

type Cursor = { lastSyncAt: string }

const TEXT = /\.(md|markdown|txt)$/i

async function* walk(dir: string): AsyncGenerator<string> {
	for (const entry of await readdir(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name)
		if (entry.isDirectory()) yield* walk(path)
		else if (entry.isFile() && !entry.name.startsWith('.')) yield path
	}
}

async function readItem(path: string, name: string) {
	if (TEXT.test(name)) return { content: await readFile(path, 'utf8') }
	return { file: { bytes: new Uint8Array(await readFile(path)), name: basename(name) } }
}

export function folderConnector(options: FolderOptions) {
	return defineConnector<Cursor, Record<string, never>>({
		provider: options.provider ?? 'folder',
		displayName: 'Folder',
		auth: { type: 'none' },
		schedule: { everyHours: options.everyHours ?? 1 },
		async *sync(ctx): AsyncGenerator<SyncEvent<Cursor>> {
			const present: string[] = []
			for await (const path of walk(options.root)) {
				const externalId = relative(options.root, path)
				present.push(externalId)
				try {
					const info = await stat(path)
					const version = `${info.size}:${info.mtimeMs}`
					if (await ctx.hasVersion(externalId, version)) {
						yield { type: 'unchanged', externalId }
						continue
					}
					yield {
						type: 'upsert',
						document: {
							externalId,
							version,
							title: externalId,
							...(await readItem(path, externalId)),
							url: null,
							metadata: { path: externalId },
						},
					}
				} catch (error) {
					yield { type: 'failure', externalId, error: (error as Error).message }
				}
			}
			yield { type: 'present', externalIds: present, complete: true }
			yield { type: 'checkpoint', cursor: { lastSyncAt: new Date().toISOString() } }
		},
	})
}
