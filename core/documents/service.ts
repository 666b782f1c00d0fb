import type { DocumentHeader, DocumentRecord, Dreaming, Metadata, Scope, TaskType } from '../domain/types.ts'
import { notFound, ServiceError } from '../errors.ts'
import type { JobQueue } from '../jobs/queue.ts'
import type { Logger } from '../logger.ts'
import type { FileStore } from '../plugins/files.ts'
import type { BulkDeleteSelector, ListDocumentsQuery, Storage } from '../plugins/storage.ts'
import type { UsageMeter } from '../usage/meter.ts'
import { contentHash } from './content-hash.ts'
import { prepareContent, removeStoredFiles, type UploadedFile } from './prepare-content.ts'

export const DEFAULT_CONTAINER_TAG = 'sm_project_default'

export interface AddDocumentInput {
	/** Text, a URL, or structured content (JSON text, or a JSON object or array). */
	content: string | Record<string, unknown> | unknown[]
	/** Paths of structured-content fields to copy into metadata (see prepare-content.ts). */
	metadataFields?: string[]
	/** An uploaded original, already in the file store. */
	file?: UploadedFile
	containerTag?: string
	customId?: string
	metadata?: Metadata
	dreaming?: Dreaming
	taskType?: TaskType
	entityContext?: string
	/** Limits the memories its formation links to (see DocumentRecord.formationScope); omitted on a re-send: kept. */
	formationScope?: Metadata
	filepath?: string
	/** Overrides the detected source, e.g. `conversation` for POST /v4/conversations. */
	source?: string
	/** The connection that imported the document. */
	connectionId?: string
	title?: string | null
	/** A re-send of the customId adds to the document instead of replacing it (see NewDocument.append). */
	append?: boolean
	/** The document (by id, in the container tag) this replaces: a file replacing one added without a customId. */
	documentId?: string
	/** Without a customId: the same add made this many seconds ago is answered instead of a new document. */
	retryWindowSeconds?: number
}

export interface UpdateDocumentInput {
	content?: string
	containerTag?: string
	customId?: string
	metadata?: Metadata
	taskType?: TaskType
	filepath?: string
	entityContext?: string
	formationScope?: Metadata
	dreaming?: Dreaming
}

export { contentHash }

/** Document operations behind the v3 routes; HTTP-free so batch, file and connector ingest reuse them. */
export function createDocumentService(deps: {
	storage: Storage
	queue: JobQueue
	usage: UsageMeter
	/** Where originals are kept; their files go when their documents go. */
	files?: FileStore
	logger?: Logger
}) {
	const { storage, queue, usage } = deps
	const removeFiles = (keys: string[]) => removeStoredFiles(deps.files, keys, deps.logger)

	async function enqueue(scope: Scope, document: DocumentRecord) {
		await queue.enqueueDocument({ documentId: document.id, orgId: scope.orgId })
	}

	return {
		async add(scope: Scope, input: AddDocumentInput): Promise<DocumentRecord> {
			await usage.assertWithinQuota(scope.orgId, 'documents')
			const prepared = prepareContent(input)
			const { document, needsProcessing, replacedFile } = await storage.documents.upsert(scope, {
				containerTag: input.containerTag ?? DEFAULT_CONTAINER_TAG,
				customId: input.customId ?? null,
				content: prepared.content,
				contentHash: prepared.contentHash,
				type: prepared.type,
				taskType: input.taskType ?? 'memory',
				dreaming: input.dreaming ?? 'dynamic',
				metadata: prepared.metadata,
				filepath: input.filepath ?? null,
				entityContext: input.entityContext ?? null,
				...(input.formationScope !== undefined ? { formationScope: input.formationScope } : {}),
				title: input.title ?? null,
				url: prepared.url,
				source: input.source ?? prepared.source,
				file: prepared.file,
				...(input.connectionId ? { connectionId: input.connectionId } : {}),
				...(input.append ? { append: true } : {}),
				...(input.documentId !== undefined ? { documentId: input.documentId } : {}),
				...(input.retryWindowSeconds ? { retryWindowSeconds: input.retryWindowSeconds } : {}),
			})
			if (replacedFile) await removeFiles([replacedFile.key])
			if (needsProcessing) {
				await enqueue(scope, document)
				usage.record(scope.orgId, 'documents')
				usage.record(scope.orgId, 'characters', prepared.content.length)
			}
			return document
		},

		/** With `containerTags`, only a document of one of them (a restricted key's reach) is found. */
		async get(scope: Scope, idOrCustomId: string, containerTags?: string[]): Promise<DocumentRecord> {
			const document = await storage.documents.get(scope, idOrCustomId, containerTags)
			if (!document) throw notFound('Document')
			return document
		},

		/** The document of one container tag with that id or customId (404 otherwise). */
		async getInContainer(scope: Scope, containerTag: string, idOrCustomId: string): Promise<DocumentRecord> {
			const document = await storage.documents.getInContainer(scope, containerTag, idOrCustomId)
			if (!document) throw notFound('Document')
			return document
		},

		async update(scope: Scope, idOrCustomId: string, input: UpdateDocumentInput): Promise<DocumentRecord> {
			const existing = await storage.documents.get(scope, idOrCustomId)
			if (!existing) throw notFound('Document')
			// New text content replaces an uploaded original.
			const dropsFile = existing.file !== null && input.content !== undefined
			const result = await storage.documents.update(scope, existing.id, {
				...input,
				...(input.content !== undefined ? { contentHash: contentHash(input.content) } : {}),
				...(dropsFile ? { file: null } : {}),
			})
			if (!result) throw notFound('Document')
			if (dropsFile) await removeFiles([existing.file!.key])
			if (result.needsProcessing) await enqueue(scope, result.document)
			return result.document
		},

		/** Sends a failed document through the pipeline again, from its first stage that did not finish. */
		async retry(scope: Scope, idOrCustomId: string): Promise<DocumentRecord> {
			const document = await storage.documents.get(scope, idOrCustomId)
			if (!document) throw notFound('Document')
			if (document.status !== 'failed') {
				throw new ServiceError(409, 'Conflict', `only a failed document can be retried; this one is ${document.status}`)
			}
			const stages = document.stages.filter((stage) => stage.outcome === 'ok')
			await storage.documents.setProgress(document.id, {
				contentHash: document.contentHash,
				status: 'queued',
				stages,
				error: null,
			})
			await enqueue(scope, document)
			return { ...document, status: 'queued', stages, error: null }
		},

		async delete(scope: Scope, idOrCustomId: string): Promise<void> {
			const file = (await storage.documents.get(scope, idOrCustomId))?.file
			if (!(await storage.documents.delete(scope, idOrCustomId))) throw notFound('Document')
			if (file) await removeFiles([file.key])
		},

		async deleteMany(scope: Scope, selector: BulkDeleteSelector) {
			const result = await storage.documents.deleteMany(scope, selector)
			await removeFiles(result.deletedFileKeys ?? [])
			return result
		},

		/** The document's text to read: what extraction read from it, or what was sent while it is not extracted. */
		async text(document: DocumentHeader | DocumentRecord): Promise<string> {
			const text = await storage.documents.text(document.id)
			if (text !== null) return text
			if ('content' in document) return document.content
			return (await storage.documents.getMany({ orgId: document.orgId }, [document.id]))[0]?.content ?? ''
		},

		/** The content the API shows: what was sent, or for an upload the text read from its file (null until then). */
		async shownContent(document: DocumentRecord): Promise<string | null> {
			return document.file ? storage.documents.text(document.id) : document.content
		},

		list(scope: Scope, query: ListDocumentsQuery) {
			return storage.documents.list(scope, query)
		},

		processing(scope: Scope) {
			return storage.documents.processing(scope)
		},

		/** A page of a container tag's chunks. */
		chunksInContainer: (
			scope: Scope,
			containerTag: string,
			query: Parameters<Storage['chunks']['listInContainer']>[2],
		) => storage.chunks.listInContainer(scope, containerTag, query),

		async chunks(scope: Scope, idOrCustomId: string) {
			const document = await storage.documents.get(scope, idOrCustomId)
			if (!document) throw notFound('Document')
			return { document, chunks: await storage.chunks.list(scope, document.id) }
		},
	}
}

export type DocumentService = ReturnType<typeof createDocumentService>
