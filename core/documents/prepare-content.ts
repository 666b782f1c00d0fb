import type { DocumentType, Metadata, StoredFile } from '../domain/types.ts'
import { badRequest } from '../errors.ts'
import type { Logger } from '../logger.ts'
import { MAX_METADATA_FIELDS, metadataFromFields, parseStructured } from '../pipeline/extract/structured.ts'
import { urlIn } from '../pipeline/extract.ts'
import type { FileStore } from '../plugins/files.ts'

/** An uploaded original: the document's content is then empty and its hash is the file's. */
export interface UploadedFile {
	record: StoredFile
	/** sha256 of the bytes, so re-uploading the same file is not reprocessed. */
	hash: string
	type: DocumentType
}

export interface PreparedContent {
	content: string
	contentHash: string
	type: DocumentType
	url: string | null
	source: string
	metadata: Metadata | null
	file: StoredFile | null
}

function hashOf(content: string): string {
	return new Bun.CryptoHasher('sha256').update(content).digest('hex')
}

/**
 * What a document is stored with, from what was sent: text, a URL (fetched by the pipeline), structured content (a
 * JSON object or array, sent as JSON text or as a JSON value) or an uploaded file. `metadataFields` copies fields
 * of structured content into metadata (explicit metadata wins on the same key), so filters can use them.
 */
export function prepareContent(input: {
	content: string | Record<string, unknown> | unknown[]
	metadata?: Metadata
	metadataFields?: string[]
	file?: UploadedFile
}): PreparedContent {
	const content = typeof input.content === 'string' ? input.content : JSON.stringify(input.content)
	let metadata: Metadata | null = input.metadata ?? null
	if (input.metadataFields && input.metadataFields.length > 0) {
		if (input.metadataFields.length > MAX_METADATA_FIELDS) {
			throw badRequest(`metadataFields: at most ${MAX_METADATA_FIELDS} paths`)
		}
		const structured = typeof input.content === 'string' ? parseStructured(content) : input.content
		if (!structured) throw badRequest('metadataFields: the content is not a JSON object or array')
		metadata = { ...metadataFromFields(structured, input.metadataFields), ...input.metadata }
	}
	if (input.file) {
		return {
			content,
			contentHash: input.file.hash,
			type: input.file.type,
			url: null,
			source: 'file',
			metadata,
			file: input.file.record,
		}
	}
	const url = urlIn(content)
	return {
		content,
		contentHash: hashOf(content),
		type: url ? 'webpage' : 'text',
		url,
		source: url ? 'url' : 'text',
		metadata,
		file: null,
	}
}

/** Removes originals whose documents are gone; a failure is logged, not raised, since the documents are gone. */
export async function removeStoredFiles(files: FileStore | undefined, keys: string[], logger?: Logger) {
	if (!files || keys.length === 0) return
	const results = await Promise.allSettled(keys.map((key) => files.delete(key)))
	for (const [i, result] of results.entries()) {
		if (result.status === 'rejected') {
			logger?.warn('could not remove a stored file', { key: keys[i], error: String(result.reason) })
		}
	}
}
