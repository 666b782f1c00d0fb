import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * A fresh PGlite data directory (`dumpDataDir('gzip')` of a new database, no schema), made by
 * `bun run pglite-template`. A new store starts from it instead of running initdb in WebAssembly, which copies and
 * grows the module's heap to near 1 GB.
 */
export const PGLITE_TEMPLATE_DIR = join(import.meta.dir, 'pglite-template')
export const TEMPLATE_DATA_FILE = 'data.tar.gz'
export const TEMPLATE_MANIFEST_FILE = 'manifest.json'

export interface TemplateManifest {
	pglite: string
	pgvector: string
}

/** The versions of PGlite and pgvector installed beside this file. */
export function installedVersions(): TemplateManifest {
	const version = (name: string): string =>
		JSON.parse(readFileSync(Bun.resolveSync(`${name}/package.json`, import.meta.dir), 'utf8')).version
	return { pglite: version('@electric-sql/pglite'), pgvector: version('@electric-sql/pglite-pgvector') }
}

/** The template as PGlite's `loadDataDir` takes it, or why it cannot be used. */
export function loadTemplate(dir: string): { data: File } | { unusable: string } {
	try {
		const manifest: TemplateManifest = JSON.parse(readFileSync(join(dir, TEMPLATE_MANIFEST_FILE), 'utf8'))
		const installed = installedVersions()
		if (manifest.pglite !== installed.pglite || manifest.pgvector !== installed.pgvector) {
			return {
				unusable:
					`made with PGlite ${manifest.pglite} and pgvector ${manifest.pgvector}, installed are ` +
					`${installed.pglite} and ${installed.pgvector} (run \`bun run pglite-template\`)`,
			}
		}
		const bytes = readFileSync(join(dir, TEMPLATE_DATA_FILE))
		return { data: new File([bytes], TEMPLATE_DATA_FILE, { type: 'application/x-gzip' }) }
	} catch (error) {
		return { unusable: (error as Error).message }
	}
}

/**
 * Whether `dataDir` holds no database yet: `memory://`, or a directory that is missing or empty. PGlite refuses
 * `loadDataDir` over an existing database, and a non-empty directory without one is left to initdb.
 */
export function isNewStore(dataDir: string): boolean {
	if (/^[a-z]+:\/\//.test(dataDir)) return dataDir.startsWith('memory://')
	return !existsSync(dataDir) || readdirSync(dataDir).length === 0
}
