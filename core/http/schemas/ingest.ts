import { t } from 'elysia'

/** Content of an add: text, a URL, or structured content (JSON text, or a JSON object or array given as it is). */
export const IngestContent = t.Union(
	[
		t.String({ minLength: 1 }),
		t.Record(t.String(), t.Unknown(), { description: 'A JSON object: stored as JSON, indexed as readable text' }),
		t.Array(t.Unknown(), { minItems: 1, description: 'A JSON array: stored as JSON, indexed as readable text' }),
	],
	{
		error: 'must be a non-empty string, or a JSON object or array',
		description:
			'Text, a URL (http/https, fetched and read: web page, PDF, office file, image), or structured content (a JSON object or array, as JSON text or as a value)',
	},
)

/** Paths of structured-content fields copied into metadata, where filters can use them. */
export const MetadataFields = t.Array(t.String({ minLength: 1, maxLength: 256, pattern: '^[^.]+(\\.[^.]+)*$' }), {
	maxItems: 50,
	error: 'must be at most 50 dotted paths such as "author" or "stats.views"',
	description:
		'Fields of structured content to copy into metadata (same key as the path, e.g. "author", "stats.views", "items.0.sku"); explicit metadata wins on the same key',
})
