import { Elysia, t } from 'elysia'
import { writeTag } from '../../auth/restriction.ts'
import { badRequest } from '../../errors.ts'
import { bearerAuth, keyBeforeParsing } from '../auth.ts'
import { parseJsonText } from '../guards/json-text.ts'
import { oneTag } from '../one-tag.ts'
import type { RouteDeps } from '../route-deps.ts'
import { CONTAINER_TAG_PATTERN, ErrorResponse, errorResponses, MetadataIn } from '../schemas/common.ts'
import { DocumentAck } from '../schemas/documents.ts'
import { FileUrlResponse, UploadFileBody } from '../schemas/files.ts'
import { MetadataFields } from '../schemas/ingest.ts'
import { validator } from '../validate.ts'
import { visibleDocument } from './documents.ts'

const checkMetadata = validator(MetadataIn)
const checkFields = validator(MetadataFields)
const TAG = new RegExp(CONTAINER_TAG_PATTERN)

/** A multipart field holding JSON text (or already parsed by the multipart parser). */
function jsonField(value: unknown, field: string): unknown {
	if (typeof value !== 'string') return value
	return parseJsonText(value, field)
}

function metadataField(value: unknown, field: string) {
	if (value === undefined || value === '') return undefined
	const checked = checkMetadata(jsonField(value, field), field)
	if (!checked.ok) throw badRequest(checked.details)
	return checked.value
}

/** `containerTag` or `containerTags` (a JSON array string, or one tag), naming one tag between them. */
function containerTagOf(body: { containerTag?: string; containerTags?: string | string[] }): string | undefined {
	const containerTag = body.containerTag || undefined
	if (body.containerTags === undefined || body.containerTags === '') return containerTag
	const tags =
		typeof body.containerTags === 'string' && !body.containerTags.startsWith('[')
			? [body.containerTags]
			: jsonField(body.containerTags, 'containerTags')
	if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string' && tag.length <= 100 && TAG.test(tag))) {
		throw badRequest('containerTags: must be a tag or a JSON array of tags (letters, digits, "_", ":" or "-")')
	}
	return oneTag(containerTag, tags)
}

const detail = { tags: ['documents'] }

export function documentFileRoutes({ verify, files, documents }: RouteDeps) {
	return new Elysia({ prefix: '/v3/documents' })
		.use(bearerAuth(verify))
		.post(
			'/file',
			async ({ body, scope, principal }) => {
				const fields =
					body.metadataFields === undefined
						? undefined
						: checkFields(jsonField(body.metadataFields, 'metadataFields'), 'metadataFields')
				if (fields && !fields.ok) throw badRequest(fields.details)
				const formationScope = metadataField(body.filterByMetadata, 'filterByMetadata')
				const document = await files.upload(scope, {
					file: body.file,
					containerTag: writeTag(principal, containerTagOf(body)),
					customId: body.customId,
					metadata: metadataField(body.metadata, 'metadata'),
					metadataFields: fields?.value,
					entityContext: body.entityContext,
					taskType: body.taskType,
					dreaming: body.dreaming,
					filepath: body.filepath,
					fileType: body.fileType,
					mimeType: body.mimeType,
					formationScope,
				})
				return { id: document.id, status: document.status }
			},
			{
				parse: [keyBeforeParsing(verify), 'formdata'],
				body: UploadFileBody,
				response: { 200: DocumentAck, ...errorResponses, 415: ErrorResponse },
				detail: {
					...detail,
					summary: 'Upload a file (multipart); the original is kept and its text is indexed',
					description:
						'Supported: PDF (text layer), DOCX, PPTX, XLSX, CSV, HTML, Markdown, plain text, JSON, and images read by OCR. The type is detected from the bytes: an unsupported type, or a name or label that contradicts the bytes, is refused with 415 naming the detected type; a file over MEMORY_MAX_UPLOAD_BYTES with 413.',
				},
			},
		)
		.get(
			'/:id/file-url',
			async ({ params, scope, request, principal }) => {
				const document = await visibleDocument(documents, principal, scope, params.id)
				return files.signedUrl(scope, document.id, new URL(request.url).origin)
			},
			{
				params: t.Object({ id: t.String({ minLength: 1, maxLength: 255 }) }),
				response: { 200: FileUrlResponse, ...errorResponses },
				detail: { ...detail, summary: 'A signed URL (valid 24 hours) that serves the uploaded original' },
			},
		)
}
