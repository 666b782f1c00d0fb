/** What an `X-Robots-Tag` header asks of this crawler. */
export interface RobotsTag {
	noindex: boolean
	nofollow: boolean
}

/** Directive names, which a `name:` prefix is not (`unavailable_after: <date>` carries a colon too). */
const DIRECTIVES = new Set([
	'all',
	'noindex',
	'nofollow',
	'none',
	'noarchive',
	'nosnippet',
	'noimageindex',
	'notranslate',
	'unavailable_after',
	'indexifembedded',
	'max-snippet',
	'max-image-preview',
	'max-video-preview',
	'nocache',
])

/**
 * The directives of an `X-Robots-Tag` header (Google's "Robots meta tag, data-nosnippet, and X-Robots-Tag
 * specifications") that apply to `agent`: those with no user agent named, and those after `agent:`. Several headers
 * arrive joined by commas.
 */
export function robotsTagOf(header: string | null | undefined, agent: string): RobotsTag {
	const tag = { noindex: false, nofollow: false }
	if (!header) return tag
	let applies = true
	for (const raw of header.split(',')) {
		let part = raw.trim().toLowerCase()
		const named = /^([a-z0-9_-]+)\s*:\s*(.*)$/.exec(part)
		if (named && !DIRECTIVES.has(named[1]!)) {
			applies = named[1] === agent.toLowerCase()
			part = named[2]!.trim()
		}
		if (!applies) continue
		if (part === 'noindex' || part === 'none') tag.noindex = true
		if (part === 'nofollow' || part === 'none') tag.nofollow = true
	}
	return tag
}
