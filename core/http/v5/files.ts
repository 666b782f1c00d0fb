import { Elysia, t } from 'elysia'
import type { Principal } from '../../auth/verifier.ts'
import type { Metadata, Scope } from '../../domain/types.ts'
import { bearerAuth, keyBeforeParsing } from '../auth.ts'
import { parseJsonText } from '../guards/json-text.ts'
import { assertRequestStorable } from '../guards/text-rule.ts'
import type { RouteDeps } from '../route-deps.ts'
import { MetadataIn } from '../schemas/common.ts'
import { validator } from '../validate.ts'
import { namespaceFor } from './access.ts'
import { V5ValidationError } from './errors.ts'
import { DocumentRef, documented } from './responses.ts'
import { DocumentParams, NamespaceParams } from './schemas.ts'
import { documentRef } from './serialize.ts'
import { V5_TAGS } from './tags.ts'

const checkMetadata = validator(MetadataIn)

/** A JSON-encoded form field (the multipart parser may already have parsed it). */
const JsonObject = (description: string) =>
	t.Union([t.String(), t.Record(t.String(), t.Unknown())], { description, examples: ['{"source":"upload"}'] })

const formFields = {
	supportingContext: t.Optional(t.String({ maxLength: 1500, error: 'must be at most 1500 characters' })),
	metadata: t.Optional(JsonObject('Metadata as a JSON object string, e.g. {"source":"upload"}')),
	group: t.Optional(JsonObject('Values that group related context, as a JSON object string')),
	date: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
	taskType: t.Optional(t.UnionEnum(['memory', 'superrag'], { default: undefined })),
	dreaming: t.Optional(t.UnionEnum(['dynamic', 'instant'], { default: undefined })),
	fileType: t.Optional(t.UnionEnum(['text', 'pdf', 'image', 'video', 'audio'], { default: undefined })),
	mimeType: t.Optional(
		t.String({ pattern: '^[^\\s/]+\\/[^\\s/]+$', error: 'must be a media type such as text/plain' }),
	),
}
const closed = { additionalProperties: false } as const
const FileBody = t.Object({ file: t.File(), ...formFields }, closed)
const OptionalFileBody = t.Object({ file: t.Optional(t.File()), ...formFields }, closed)

type Form = { [K in Exclude<keyof typeof formFields, 'metadata' | 'group'>]?: string } & {
	metadata?: unknown
	group?: unknown
	file?: File
}

/** A multipart field holding a JSON metadata map. */
function jsonMap(value: unknown, field: string): Metadata | undefined {
	if (value === undefined || value === '') return undefined
	let parsed: unknown = value
	try {
		if (typeof value === 'string') parsed = parseJsonText(value, field)
	} catch {
		throw new V5ValidationError(`${field}: must be a JSON object string`, [field])
	}
	const checked = checkMetadata(parsed, field)
	if (!checked.ok) throw new V5ValidationError(checked.details, [field])
	return checked.value
}

/**
 * The form's fields as the document service's (as for JSON adds: `date` and `group` join the metadata, and `group`
 * is the formation scope).
 */
function fieldsOf(form: Form) {
	const metadata = jsonMap(form.metadata, 'metadata')
	const group = jsonMap(form.group, 'group')
	const merged =
		metadata || group || form.date !== undefined
			? { ...group, ...metadata, ...(form.date !== undefined ? { documentDate: form.date } : {}) }
			: undefined
	return {
		metadata: merged,
		entityContext: form.supportingContext,
		formationScope: group,
		taskType: form.taskType as 'memory' | 'superrag' | undefined,
		dreaming: form.dreaming as 'dynamic' | 'instant' | undefined,
		fileType: form.fileType,
		mimeType: form.mimeType,
	}
}

/** Uploads (#6), replacement with a file (#7) and partial multipart updates (#8). */
export function fileRoutes({ verify, files, documents }: RouteDeps) {
	/** The document a file replaces, by internal or caller id; the upload is then a re-send to that very document. */
	async function replaceable(scope: Scope, principal: Principal, namespace: string, id: string) {
		const document = await documents.getInContainer(scope, namespaceFor(principal, namespace), id)
		return {
			document,
			target: {
				containerTag: document.containerTag,
				documentId: document.id,
				...(document.customId !== null ? { customId: document.customId } : {}),
			},
		}
	}

	// The path's text is checked with the key, before a multipart body is read: a bad id is named, not a parse error.
	const storablePath = ({ params }: { params: Record<string, string> }) => {
		assertRequestStorable({ params })
	}
	const parse = [keyBeforeParsing(verify), storablePath, 'formdata'] as const

	return new Elysia()
		.use(bearerAuth(verify))
		.post(
			'/ns/:namespace/document/file',
			async ({ params, body, scope, principal }) => {
				const namespace = namespaceFor(principal, params.namespace)
				const document = await files.upload(scope, { file: body.file, containerTag: namespace, ...fieldsOf(body) })
				return documentRef(document)
			},
			{
				parse: [...parse],
				params: NamespaceParams,
				body: FileBody,
				detail: {
					tags: [V5_TAGS.documents],
					operationId: 'postNsByNamespaceDocumentFile',
					...documented(200, DocumentRef, 'File accepted for processing'),
					summary: 'Upload a file (multipart) as a new document',
				},
			},
		)
		.post(
			'/ns/:namespace/document/file/:id',
			async ({ params, body, scope, principal }) => {
				const { target } = await replaceable(scope, principal, params.namespace, params.id)
				const document = await files.upload(scope, { file: body.file, ...target, ...fieldsOf(body) })
				return documentRef(document)
			},
			{
				parse: [...parse],
				params: DocumentParams,
				body: FileBody,
				detail: {
					tags: [V5_TAGS.documents],
					operationId: 'postNsByNamespaceDocumentFileById',
					...documented(200, DocumentRef, 'Replacement accepted', [404]),
					summary: 'Replace a document with a new file (content and caller metadata overwritten), keeping its id',
				},
			},
		)
		.patch(
			'/ns/:namespace/document/file/:id',
			async ({ params, body, scope, principal }) => {
				const fields = fieldsOf(body)
				if (body.file === undefined) {
					const existing = await documents.getInContainer(scope, namespaceFor(principal, params.namespace), params.id)
					const updated = await documents.update(scope, existing.id, {
						metadata: fields.metadata ? { ...existing.metadata, ...fields.metadata } : undefined,
						entityContext: fields.entityContext,
						formationScope: fields.formationScope,
						taskType: fields.taskType,
						dreaming: fields.dreaming,
					})
					return documentRef(updated)
				}
				const { document: existing, target } = await replaceable(scope, principal, params.namespace, params.id)
				const document = await files.upload(scope, {
					file: body.file,
					...target,
					...fields,
					metadata: { ...existing.metadata, ...fields.metadata },
					entityContext: fields.entityContext ?? existing.entityContext ?? undefined,
					taskType: fields.taskType ?? existing.taskType,
					dreaming: fields.dreaming ?? existing.dreaming,
				})
				return documentRef(document)
			},
			{
				parse: [...parse],
				params: DocumentParams,
				body: OptionalFileBody,
				detail: {
					tags: [V5_TAGS.documents],
					operationId: 'patchNsByNamespaceDocumentFileById',
					...documented(200, DocumentRef, 'Update accepted', [404]),
					summary: 'Partial multipart update: a file replaces the content; omitted fields stay',
				},
			},
		)
}
