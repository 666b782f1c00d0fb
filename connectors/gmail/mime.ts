import type { Address, Attachment, Email } from 'postal-mime'

/** A message that cannot be read as mail: it fails its thread, never the run. */
export class UnreadableMessageError extends Error {}

export interface DecodedMessage {
	from: string
	to: string
	cc: string
	/** ISO time, or the raw header when it does not parse. */
	date: string | null
	subject: string
	/** The text/plain body when there is one, else the HTML body (`html`); quoted replies not yet removed. */
	text: string | null
	html: string | null
	attachments: { name: string; mimeType: string; bytes: Uint8Array }[]
}

/** A header line (`Name: value`) must open the message; binary or headerless input is not mail. */
const HEADER_LINE = /^[\x21-\x39\x3b-\x7e]+:[^\r\n]*\r?\n/

/**
 * Reads one RFC 5322 message (Gmail's `format=raw`) with postal-mime, which decodes base64, quoted-printable,
 * charsets and encoded-word headers. postal-mime reads anything; what it would silently mangle is refused here: input
 * without headers, a multipart without its boundary, a text part in a charset no decoder knows.
 */
export async function decodeMessage(raw: Uint8Array): Promise<DecodedMessage> {
	const head = new TextDecoder('windows-1252').decode(raw.subarray(0, Math.min(raw.length, 256 * 1024)))
	if (!HEADER_LINE.test(head)) throw new UnreadableMessageError('malformed MIME: the message has no header')
	checkContentTypes(head)
	const { default: PostalMime } = await import('postal-mime')
	let email: Email
	try {
		email = await PostalMime.parse(raw, { attachmentEncoding: 'arraybuffer', maxNestingDepth: 32 })
	} catch (error) {
		throw new UnreadableMessageError(`malformed MIME: ${(error as Error).message}`)
	}
	return {
		from: addresses(email.from ? [email.from] : []),
		to: addresses(email.to ?? []),
		cc: addresses(email.cc ?? []),
		date: email.date ?? null,
		subject: email.subject?.trim() ?? '',
		text: email.text?.trim() ? email.text : null,
		html: email.html?.trim() ? email.html : null,
		attachments: email.attachments.filter(isFile).map((attachment) => ({
			name: attachment.filename ?? 'attachment',
			mimeType: attachment.mimeType,
			bytes: new Uint8Array(attachment.content as ArrayBuffer),
		})),
	}
}

/** Files a sender attached (not the images an HTML body shows inline). */
const isFile = (attachment: Attachment) =>
	attachment.filename !== null && attachment.disposition !== 'inline' && !attachment.related

function addresses(list: Address[]): string {
	return list
		.flatMap((entry) => ('group' in entry && entry.group ? entry.group : [entry]))
		.map((entry) => {
			const address = 'address' in entry ? entry.address : ''
			return entry.name && address ? `${entry.name} <${address}>` : entry.name || address || ''
		})
		.filter(Boolean)
		.join(', ')
}

/** Each Content-Type header of the message and its parts (folded lines unfolded). */
function contentTypes(text: string): string[] {
	const found: string[] = []
	const pattern = /^content-type:[ \t]*([^\r\n]*(?:\r?\n[ \t][^\r\n]*)*)/gim
	for (const match of text.matchAll(pattern)) found.push(match[1]!.replace(/\r?\n[ \t]+/g, ' '))
	return found
}

const parameter = (header: string, name: string) =>
	header
		.match(new RegExp(`;\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, 'i'))
		?.slice(1)
		.find(Boolean)

/** Refuses a multipart part without its boundary and a text part in a charset no decoder knows (one pass). */
function checkContentTypes(text: string) {
	for (const header of contentTypes(text)) {
		if (/^multipart\//i.test(header) && !parameter(header, 'boundary')) {
			throw new UnreadableMessageError('malformed MIME: a multipart part has no boundary')
		}
		if (!/^text\//i.test(header)) continue
		const charset = parameter(header, 'charset')
		if (charset && !isKnownCharset(charset)) {
			throw new UnreadableMessageError(`unknown charset "${charset.slice(0, 40)}"`)
		}
	}
}

/** The WHATWG encodings (what TextDecoder decodes), also under their common spellings (`x-`, no dashes). */
function isKnownCharset(label: string): boolean {
	const candidates = [label, label.replace(/^(x-|cs)/i, ''), label.replace(/^(x-|cs)/i, '').replace(/[\s._]+/g, '-')]
	return candidates.some((candidate) => {
		try {
			new TextDecoder(candidate as ConstructorParameters<typeof TextDecoder>[0])
			return true
		} catch {
			return false
		}
	})
}
