import { t } from 'elysia'
import {
	ContainerTag,
	ContainerTags,
	DateTime,
	DocumentStatus,
	DocumentType,
	Dreaming,
	Filters,
	MetadataIn,
	NumberLike,
	Pagination,
	TaskType,
} from './common.ts'
import { REQUEST_EXAMPLES } from './examples.ts'
import { IngestContent, MetadataFields } from './ingest.ts'
import { MemoryOfDocument } from './memories.ts'

const Content = t.String({
	minLength: 1,
	error: 'must be a non-empty string',
	description: 'Text, a URL, or structured content',
})
const CustomId = t.String({ minLength: 1, maxLength: 255, error: 'must be 1 to 255 characters' })
const EntityContext = t.String({ maxLength: 1500, error: 'must be at most 1500 characters' })
const Filepath = t.String({ minLength: 1, maxLength: 1024 })

export const AddDocumentBody = t.Object(
	{
		content: IngestContent,
		metadataFields: t.Optional(MetadataFields),
		containerTag: t.Optional(ContainerTag),
		containerTags: t.Optional(ContainerTags),
		customId: t.Optional(CustomId),
		metadata: t.Optional(MetadataIn),
		dreaming: t.Optional(Dreaming),
		taskType: t.Optional(TaskType),
		entityContext: t.Optional(EntityContext),
		filepath: t.Optional(Filepath),
		filterByMetadata: t.Optional(MetadataIn),
	},
	{ additionalProperties: false, examples: [REQUEST_EXAMPLES.addDocument] },
)

export const UpdateDocumentBody = t.Object(
	{
		content: t.Optional(Content),
		containerTag: t.Optional(ContainerTag),
		containerTags: t.Optional(ContainerTags),
		customId: t.Optional(CustomId),
		metadata: t.Optional(MetadataIn),
		taskType: t.Optional(TaskType),
		filepath: t.Optional(Filepath),
		filterByMetadata: t.Optional(MetadataIn),
	},
	{ additionalProperties: false, examples: [REQUEST_EXAMPLES.updateDocument] },
)

export const DocumentAck = t.Object({ id: t.String(), status: t.String() })

const StageRecord = t.Object({
	stage: t.String(),
	startedAt: t.String(),
	endedAt: t.Nullable(t.String()),
	outcome: t.String(),
	error: t.Optional(t.String()),
})

const summaryFields = {
	id: t.String(),
	customId: t.Nullable(t.String()),
	connectionId: t.Nullable(t.String()),
	filepath: t.Nullable(t.String()),
	title: t.Nullable(t.String()),
	summary: t.Nullable(t.String()),
	status: DocumentStatus,
	type: DocumentType,
	metadata: t.Nullable(t.Record(t.String(), t.Unknown())),
	url: t.Nullable(t.String()),
	containerTags: t.Array(t.String()),
	dreamingStatus: t.UnionEnum(['dreaming', 'done'], {
		description: 'dreaming while the document waits for its container to form its memories (dynamic dreaming)',
	}),
	createdAt: DateTime,
	updatedAt: DateTime,
}

/** `content` (with includeContent) is what GET shows: null for an upload whose text is not read yet. */
export const DocumentSummary = t.Object({ ...summaryFields, content: t.Optional(t.Nullable(t.String())) })

export const DocumentDetail = t.Object({
	...summaryFields,
	containerTag: t.String(),
	content: t.Nullable(t.String()),
	raw: t.Null(),
	source: t.Nullable(t.String()),
	ogImage: t.Nullable(t.String()),
	spatialPoint: t.Null({ description: 'A place the document is about; not recorded by this service' }),
	taskType: TaskType,
	dreaming: Dreaming,
	memories: t.Optional(
		t.Array(MemoryOfDocument, { description: 'Memories formed from the document, once there are any' }),
	),
	error: t.Nullable(t.String({ description: 'Why processing failed' })),
	file: t.Nullable(
		t.Object(
			{ name: t.String(), mimeType: t.String(), size: t.Number() },
			{ description: 'The uploaded original (GET /v3/documents/{id}/file-url serves it); null for text and URLs' },
		),
	),
	stages: t.Array(StageRecord, { description: 'Each pipeline stage: start, end and outcome' }),
})

export const ListDocumentsBody = t.Object(
	{
		containerTags: t.Optional(ContainerTags),
		containerTag: t.Optional(ContainerTag),
		filters: t.Optional(Filters),
		includeContent: t.Optional(t.Boolean()),
		includeSummary: t.Optional(t.Boolean({ description: 'Accepted: every item carries its summary' })),
		limit: t.Optional(NumberLike),
		page: t.Optional(NumberLike),
		order: t.Optional(t.UnionEnum(['asc', 'desc'], { error: 'must be "asc" or "desc"', default: undefined })),
		sort: t.Optional(t.UnionEnum(['createdAt', 'updatedAt'], { error: 'must be "createdAt" or "updatedAt"' })),
		filepath: t.Optional(Filepath),
	},
	{ examples: [REQUEST_EXAMPLES.listDocuments] },
)

export const ListDocumentsResponse = t.Object({
	memories: t.Array(DocumentSummary, { description: 'Documents (the published API calls this array "memories")' }),
	pagination: Pagination,
	results: t.Array(DocumentSummary, { description: 'Same documents, as the brief names them' }),
	totalCount: t.Number(),
})

export const ProcessingResponse = t.Object({ documents: t.Array(DocumentSummary), totalCount: t.Number() })

export const ChunksResponse = t.Object({
	documentId: t.String(),
	chunks: t.Array(
		t.Object({
			id: t.String(),
			documentId: t.String(),
			position: t.Number(),
			content: t.String(),
			type: t.String(),
			metadata: t.Nullable(t.Record(t.String(), t.Unknown())),
			createdAt: DateTime,
		}),
	),
	total: t.Number(),
})

export const BulkDeleteBody = t.Object(
	{
		ids: t.Optional(
			t.Array(t.String({ minLength: 1 }), { minItems: 1, maxItems: 100, error: 'must list 1 to 100 ids' }),
		),
		containerTags: t.Optional(t.Array(ContainerTag, { minItems: 1 })),
		filepath: t.Optional(Filepath),
	},
	{ examples: [REQUEST_EXAMPLES.bulkDelete] },
)

export const BulkDeleteResponse = t.Object({
	success: t.Boolean(),
	deletedCount: t.Number(),
	errors: t.Optional(t.Array(t.Object({ id: t.String(), error: t.String() }))),
	containerTags: t.Optional(t.Array(t.String())),
})
