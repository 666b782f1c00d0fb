export { DEFAULT_DATA_DIR, type StoragePostgresOptions, storagePostgres } from './plugin.ts'
