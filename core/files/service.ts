import type { DocumentService } from '../documents/service.ts'
import type { DocumentRecord, Metadata, Scope } from '../domain/types.ts'
import { badRequest, ServiceError } from '../errors.ts'
import { newId } from '../ids.ts'
import type { Logger } from '../logger.ts'
import { detectFile } from '../pipeline/extract/detect.ts'
import { KINDS } from '../pipeline/extract/kinds.ts'
import { MAX_METADATA_FIELDS, metadataFromFields, parseStructured } from '../pipeline/extract/structured.ts'
import { decodeText } from '../pipeline/extract/text.ts'
import type { FileStore } from '../plugins/files.ts'
import type { Storage } from '../plugins/storage.ts'
import { FILE_URL_LIFETIME_SECONDS, fileUrlSigner } from './signed-urls.ts'

type AddInput = Parameters<DocumentService['add']>[1]

export interface UploadInput extends Omit<AddInput, 'content' | 'file' | 'metadataFields'> {
	file: File
	/** A media type that overrides the part's own (the upload's `mimeType` field). */
	mimeType?: string
	/** The upload's `fileType` field: the document type the caller says the file is. */
	fileType?: string
	metadataFields?: string[]
}

export interface BytesInput extends Omit<AddInput, 'content' | 'file' | 'metadataFields'> {
	bytes: Uint8Array
	name: string
	mimeType?: string
}

interface IngestInput extends Omit<AddInput, 'content' | 'file'> {
	bytes: Uint8Array
	name: string
	declaredMime: string | null
	fileType?: string
	strict: boolean
}

const MAX_NAME = 255

/**
 * Uploads, originals and their signed URLs. An upload is checked (size, type, label) before anything is stored;
 * the original goes to the file store first and is removed again if the document cannot be stored, so a refused
 * or failed upload leaves nothing behind.
 */
export function createFileService(deps: {
	storage: Storage
	files: FileStore
	documents: DocumentService
	secret: string
	maxUploadBytes: number
	publicUrl: string | null
	logger: Logger
}) {
	const { storage, files, documents } = deps
	const signer = fileUrlSigner(deps.secret)
	const now = () => Math.floor(Date.now() / 1000)

	async function ingest(scope: Scope, input: IngestInput): Promise<DocumentRecord> {
		const { bytes, name: fileName, declaredMime, fileType, strict, metadataFields, ...rest } = input
		const name = (fileName || 'upload').slice(0, MAX_NAME)
		const detection = await detectFile({ bytes, fileName: name, declaredMime, fileType, strict })
		if (!detection.ok) {
			if (detection.problem === 'empty') throw badRequest('file: the file is empty')
			if (detection.problem === 'fileType') throw badRequest(detection.message)
			const error = detection.problem === 'mislabelled' ? 'File type does not match its label' : 'Unsupported file type'
			throw new ServiceError(415, error, detection.message)
		}
		let metadata = rest.metadata
		if (metadataFields && metadataFields.length > 0) {
			if (metadataFields.length > MAX_METADATA_FIELDS)
				throw badRequest(`metadataFields: at most ${MAX_METADATA_FIELDS} paths`)
			const structured = detection.kind === 'json' ? parseStructured(decodeText(bytes) ?? '') : null
			if (!structured) throw badRequest('metadataFields: the file is not a JSON object or array')
			metadata = { ...metadataFromFields(structured, metadataFields), ...rest.metadata } as Metadata
		}
		const key = `${scope.orgId}/${newId()}`
		await files.put(key, bytes, { contentType: detection.mime })
		try {
			return await documents.add(scope, {
				...rest,
				metadata,
				content: '',
				file: {
					record: { key, name, mimeType: detection.mime, size: bytes.length },
					hash: new Bun.CryptoHasher('sha256').update(bytes).digest('hex'),
					type: KINDS[detection.kind].type,
				},
			})
		} catch (error) {
			await files.delete(key).catch((cause) => deps.logger.warn('could not remove a refused upload', { key, cause }))
			throw error
		}
	}

	return {
		maxUploadBytes: deps.maxUploadBytes,

		async upload(scope: Scope, input: UploadInput): Promise<DocumentRecord> {
			const { file, mimeType, ...rest } = input
			if (file.size > deps.maxUploadBytes) throw uploadTooLarge(file.size, deps.maxUploadBytes)
			return ingest(scope, {
				...rest,
				bytes: new Uint8Array(await file.arrayBuffer()),
				name: file.name,
				declaredMime: mimeType || file.type || null,
				strict: true,
			})
		},

		/**
		 * A connector's file: like an upload, but leniently typed (providers label files loosely, so the bytes
		 * decide); an unsupported type or an oversized file is refused with the same 4xx as an upload.
		 */
		async ingestBytes(scope: Scope, input: BytesInput): Promise<DocumentRecord> {
			const { bytes, mimeType, ...rest } = input
			if (bytes.length > deps.maxUploadBytes) throw uploadTooLarge(bytes.length, deps.maxUploadBytes)
			return ingest(scope, { ...rest, bytes, declaredMime: mimeType ?? null, strict: false })
		},

		/** A fresh URL serving the document's original for 24 hours. */
		async signedUrl(scope: Scope, idOrCustomId: string, origin: string): Promise<{ url: string; expiresAt: string }> {
			const document = await documents.get(scope, idOrCustomId)
			if (!document.file) throw new ServiceError(404, 'Document has no file', 'only uploaded files have an original')
			const expires = now() + FILE_URL_LIFETIME_SECONDS
			const signature = signer.sign(document.id, document.file.key, expires)
			const base = deps.publicUrl ?? origin
			const path = `/v3/files/${document.id}/${encodeURIComponent(document.file.name || 'file')}`
			return {
				url: `${base}${path}?expires=${expires}&signature=${signature}`,
				expiresAt: new Date(expires * 1000).toISOString(),
			}
		},

		/** The original a signed URL names, or null when the URL is invalid, expired, or its file was replaced. */
		async open(documentId: string, expires: number, signature: string) {
			const document = await storage.documents.byId(documentId)
			if (!document?.file) return null
			if (!signer.verify(document.id, document.file.key, expires, signature, now())) return null
			const stored = await files.stream(document.file.key)
			return stored ? { ...stored, file: document.file } : null
		},
	}
}

export type FileService = ReturnType<typeof createFileService>

export function uploadTooLarge(size: number, limit: number): ServiceError {
	return new ServiceError(413, 'Payload too large', `the file is ${size} bytes; the upload limit is ${limit} bytes`)
}
