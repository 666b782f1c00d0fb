import type { PluginBase } from './contract.ts'

/**
 * Where original files are kept (uploads), by key. Keys are made by core: letters, digits, `_`, `-` and `/` between
 * segments, never `..`. The filesystem store is the default; an S3-compatible store implements the same five methods.
 */
export interface FileStore {
	/** Stores the bytes under the key, replacing what was there; the file is complete before this resolves. */
	put(key: string, data: Uint8Array | ReadableStream<Uint8Array>, info: { contentType: string }): Promise<void>
	/** The whole file, or null when there is none under the key. */
	get(key: string): Promise<Uint8Array | null>
	/** The file as a stream with its size, or null when there is none under the key. */
	stream(key: string): Promise<{ body: ReadableStream<Uint8Array>; size: number } | null>
	/** Removes the file; removing a missing key is not an error. */
	delete(key: string): Promise<void>
}

export type FilesPlugin = PluginBase<'files'> & FileStore

/** A file-store key core accepts: the store may use it as a relative path as it is. */
export const FILE_KEY_PATTERN = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_-]+)*$/
