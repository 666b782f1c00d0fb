import { join } from 'node:path'

/** The embedded database gets its own folder inside the data directory, beside the caches and the lock file. */
export const embeddedDatabaseDir = (dataDir: string) => join(dataDir, 'pglite')

/** Where files-local keeps originals when MEMORY_FILES_DIR is not set. */
export const defaultFilesDir = (dataDir: string) => join(dataDir, 'files')
