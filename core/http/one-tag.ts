import { badRequest } from '../errors.ts'

/**
 * The one container tag a write names. A document belongs to exactly one container tag: `containerTag`, or a
 * `containerTags` array whose items are all that tag. Several different tags are refused rather than silently keeping
 * the first, so a client never believes a document is filed under a tag where it cannot be found.
 */
export function oneTag(
	containerTag: string | undefined,
	containerTags: readonly string[] | undefined,
): string | undefined {
	const given = [...new Set([...(containerTag === undefined ? [] : [containerTag]), ...(containerTags ?? [])])]
	if (given.length > 1) {
		throw badRequest(
			`containerTags: a document belongs to exactly one container tag; got ${given.length} (${given.map((tag) => `"${tag}"`).join(', ')}). Send one tag, or add the document once per tag`,
		)
	}
	return given[0]
}
