import { t } from 'elysia'
import { CONTAINER_TAG_PATTERN, ContainerTag, Dreaming, TaskType } from './common.ts'

/** A multipart text field holding JSON; the multipart parser may already have turned it into a value. */
const JsonField = (description: string, example: string) =>
	t.Union([t.String(), t.Record(t.String(), t.Unknown()), t.Array(t.Unknown())], { description, examples: [example] })

export const UploadFileBody = t.Object(
	{
		file: t.File({
			description:
				'The file: PDF (text layer), DOCX, PPTX, XLSX, CSV, HTML, Markdown, plain text, JSON, or an image (PNG, JPEG, WebP, BMP; read by OCR)',
		}),
		containerTag: t.Optional(ContainerTag),
		containerTags: t.Optional(
			t.Union([t.String(), t.Array(t.String())], {
				description: 'Deprecated: a JSON array string such as ["user_1"], or a single tag',
				examples: ['["user_1"]'],
			}),
		),
		metadata: t.Optional(
			JsonField(
				'Metadata as a JSON object string, e.g. {"category":"report","year":2024}',
				'{"category":"report","year":2024}',
			),
		),
		filterByMetadata: t.Optional(
			JsonField('Limits the memories formation links to, as on POST /v3/documents (a JSON object)', '{}'),
		),
		customId: t.Optional(
			t.String({
				minLength: 1,
				maxLength: 100,
				pattern: CONTAINER_TAG_PATTERN,
				error: 'must be 1 to 100 characters of letters, digits, "_", ":" or "-"',
			}),
		),
		entityContext: t.Optional(t.String({ maxLength: 1500, error: 'must be at most 1500 characters' })),
		taskType: t.Optional(TaskType),
		dreaming: t.Optional(Dreaming),
		fileType: t.Optional(
			t.String({
				description:
					'The document type to read the file as (pdf, image, webpage, google_doc, google_slide, google_sheet, text); it wins over the name and label of a text file (a CSV sent as text is plain text); a file that cannot be read that way is refused with 400',
				examples: [''],
			}),
		),
		mimeType: t.Optional(
			t.String({ description: 'Media type of the file, overriding the part’s own', examples: [''] }),
		),
		filepath: t.Optional(t.String({ minLength: 1, maxLength: 1024 })),
		useAdvancedProcessing: t.Optional(t.Unknown({ description: 'Deprecated; accepted and ignored' })),
		metadataFields: t.Optional(
			JsonField(
				'For a JSON file: a JSON array of field paths to copy into metadata, e.g. ["author","stats.views"]',
				'[]',
			),
		),
	},
	{ additionalProperties: false },
)

export const FileUrlResponse = t.Object({
	url: t.String({ description: 'Signed URL serving the original file; valid 24 hours, no API key needed' }),
	expiresAt: t.String({ format: 'date-time' }),
})
