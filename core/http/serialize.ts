import type { ChunkRecord, DocumentRecord } from '../domain/types.ts'

const iso = (date: Date) => date.toISOString()

/** The list/processing item shape of the published API. */
export function documentSummary(document: DocumentRecord) {
	return {
		id: document.id,
		customId: document.customId,
		connectionId: document.connectionId,
		filepath: document.filepath,
		title: document.title,
		summary: document.summary,
		status: document.status,
		type: document.type,
		metadata: document.metadata,
		url: document.url,
		containerTags: [document.containerTag],
		dreamingStatus: document.dreamingStatus,
		createdAt: iso(document.createdAt),
		updatedAt: iso(document.updatedAt),
	}
}

/** GET /v3/documents/{id}: every key the published client requires, plus the pipeline's stage record. */
export function documentDetail(document: DocumentRecord, content: string | null) {
	return {
		...documentSummary(document),
		containerTag: document.containerTag,
		content,
		raw: null,
		source: document.source,
		ogImage: null,
		spatialPoint: null,
		taskType: document.taskType,
		dreaming: document.dreaming,
		error: document.error,
		file: document.file
			? { name: document.file.name, mimeType: document.file.mimeType, size: document.file.size }
			: null,
		stages: document.stages,
	}
}

export function chunkOut(chunk: ChunkRecord) {
	return {
		id: chunk.id,
		documentId: chunk.documentId,
		position: chunk.position,
		content: chunk.content,
		type: chunk.type,
		metadata: chunk.metadata,
		createdAt: iso(chunk.createdAt),
	}
}
