import type { DocumentRecord, Dreaming, Metadata, Scope, TaskType } from '../domain/types.ts'
import { notFound } from '../errors.ts'
import type { JobQueue } from '../jobs/queue.ts'
import type { BulkDeleteSelector, ListDocumentsQuery, Storage } from '../plugins/storage.ts'
import type { UsageMeter } from '../usage/meter.ts'

export const DEFAULT_CONTAINER_TAG = 'sm_project_default'

export interface AddDocumentInput {
	content: string
	containerTag?: string
	customId?: string
	metadata?: Metadata
	dreaming?: Dreaming
	taskType?: TaskType
	entityContext?: string
	filepath?: string
}

export interface UpdateDocumentInput {
	content?: string
	containerTag?: string
	customId?: string
	metadata?: Metadata
	taskType?: TaskType
	filepath?: string
}

export function contentHash(content: string): string {
	return new Bun.CryptoHasher('sha256').update(content).digest('hex')
}

/** Document operations behind the v3 routes; HTTP-free so batch, file and connector ingest reuse them. */
export function createDocumentService(deps: { storage: Storage; queue: JobQueue; usage: UsageMeter }) {
	const { storage, queue, usage } = deps

	async function enqueue(scope: Scope, document: DocumentRecord) {
		await queue.enqueueDocument({ documentId: document.id, orgId: scope.orgId })
	}

	return {
		async add(scope: Scope, input: AddDocumentInput): Promise<DocumentRecord> {
			await usage.assertWithinQuota(scope.orgId, 'documents')
			const { document, needsProcessing } = await storage.documents.upsert(scope, {
				containerTag: input.containerTag ?? DEFAULT_CONTAINER_TAG,
				customId: input.customId ?? null,
				content: input.content,
				contentHash: contentHash(input.content),
				type: 'text',
				taskType: input.taskType ?? 'memory',
				dreaming: input.dreaming ?? 'dynamic',
				metadata: input.metadata ?? null,
				filepath: input.filepath ?? null,
				entityContext: input.entityContext ?? null,
				title: null,
				url: null,
				source: 'text',
			})
			if (needsProcessing) {
				await enqueue(scope, document)
				usage.record(scope.orgId, 'documents')
				usage.record(scope.orgId, 'characters', input.content.length)
			}
			return document
		},

		async get(scope: Scope, idOrCustomId: string): Promise<DocumentRecord> {
			const document = await storage.documents.get(scope, idOrCustomId)
			if (!document) throw notFound('Document')
			return document
		},

		async update(scope: Scope, idOrCustomId: string, input: UpdateDocumentInput): Promise<DocumentRecord> {
			const existing = await storage.documents.get(scope, idOrCustomId)
			if (!existing) throw notFound('Document')
			const result = await storage.documents.update(scope, existing.id, {
				...input,
				...(input.content !== undefined ? { contentHash: contentHash(input.content) } : {}),
			})
			if (!result) throw notFound('Document')
			if (result.needsProcessing) await enqueue(scope, result.document)
			return result.document
		},

		async delete(scope: Scope, idOrCustomId: string): Promise<void> {
			if (!(await storage.documents.delete(scope, idOrCustomId))) throw notFound('Document')
		},

		deleteMany(scope: Scope, selector: BulkDeleteSelector) {
			return storage.documents.deleteMany(scope, selector)
		},

		list(scope: Scope, query: ListDocumentsQuery) {
			return storage.documents.list(scope, query)
		},

		processing(scope: Scope) {
			return storage.documents.processing(scope)
		},

		async chunks(scope: Scope, idOrCustomId: string) {
			const document = await storage.documents.get(scope, idOrCustomId)
			if (!document) throw notFound('Document')
			return { document, chunks: await storage.chunks.list(scope, document.id) }
		},
	}
}

export type DocumentService = ReturnType<typeof createDocumentService>
