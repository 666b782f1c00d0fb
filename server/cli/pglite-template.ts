import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite-pgvector'
import {
	installedVersions,
	PGLITE_TEMPLATE_DIR,
	TEMPLATE_DATA_FILE,
	TEMPLATE_MANIFEST_FILE,
} from '../../plugins/storage-postgres/drivers/pglite-template.ts'

// `bun run pglite-template`: rewrites the embedded store's template, a brand-new database (no schema, keys or data)
// with pgvector's module loaded, and the versions it was made with. Run it after upgrading either package.
const pg = await PGlite.create({ extensions: { vector } })
await pg.exec('CHECKPOINT')
const data = await pg.dumpDataDir('gzip')
await pg.close()

writeFileSync(join(PGLITE_TEMPLATE_DIR, TEMPLATE_DATA_FILE), new Uint8Array(await data.arrayBuffer()))
writeFileSync(join(PGLITE_TEMPLATE_DIR, TEMPLATE_MANIFEST_FILE), `${JSON.stringify(installedVersions(), null, '\t')}\n`)
console.log(`wrote ${PGLITE_TEMPLATE_DIR} (${(data.size / 1e6).toFixed(1)} MB)`)
