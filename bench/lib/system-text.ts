import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { random } from '../../testkit/text.ts'

const MAN_ROOT = '/usr/share/man'
const DOC_ROOT = '/usr/share/doc'
const PASSAGE_CHARS = 600
/** gcloud alone ships 16,000 pages of templated text: passages one program's or package's pages give at most. */
const FAMILY_PASSAGES = 10_000

interface Source {
	path: string
	/** Pages of one program or package, capped together. */
	family: string
	roff: boolean
}

/**
 * Real English text at scale without a download: the system's manual pages (English sections, roff markup
 * stripped) and its packages' documentation (changelogs, READMEs; not the licence texts). Cut at the first line end
 * past 600 characters (the service's chat chunks aim at 600, its document chunks hold at most 1,000); mostly plain
 * words, without repeats, no family of pages over 10,000 passages, in a seeded shuffle so that neighbours in the list
 * come from different pages. Null when there is not that much.
 */
export function systemTextPassages(count: number): string[] | null {
	const perFamily = new Map<string, number>()
	const seen = new Set<string>()
	const passages: string[] = []
	for (const { path, family, roff } of sources()) {
		let text: string
		try {
			const bytes = readFileSync(path)
			const raw = (path.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8')
			text = roff ? plainText(raw) : raw
		} catch {
			continue
		}
		for (const passage of cut(text)) {
			if (seen.has(passage) || (perFamily.get(family) ?? 0) >= FAMILY_PASSAGES) continue
			seen.add(passage)
			perFamily.set(family, (perFamily.get(family) ?? 0) + 1)
			passages.push(passage)
		}
	}
	const next = random(34)
	for (let i = passages.length - 1; i > 0; i--) {
		const j = Math.floor(next() * (i + 1))
		;[passages[i], passages[j]] = [passages[j]!, passages[i]!]
	}
	return passages.length >= count ? passages.slice(0, count) : null
}

function sources(): Source[] {
	const found: Source[] = []
	if (existsSync(MAN_ROOT)) {
		for (const section of readdirSync(MAN_ROOT).filter((name) => /^man\d$/.test(name))) {
			for (const name of readdirSync(join(MAN_ROOT, section)).filter((name) => name.endsWith('.gz'))) {
				found.push({ path: join(MAN_ROOT, section, name), family: name.split(/[._-]/)[0] ?? name, roff: true })
			}
		}
	}
	if (existsSync(DOC_ROOT)) {
		for (const entry of readdirSync(DOC_ROOT, { recursive: true, withFileTypes: true })) {
			if (!entry.isFile() || !/\.(gz|txt|md|rst)$|^(README|NEWS|changelog)/i.test(entry.name)) continue
			if (/copyright|licen[cs]e|copying/i.test(entry.name)) continue
			const path = join(entry.parentPath, entry.name)
			found.push({ path, family: path.slice(DOC_ROOT.length + 1).split('/')[0] ?? '', roff: false })
		}
	}
	return found.sort((a, b) => a.path.localeCompare(b.path))
}

/** Macros whose arguments are words of the page (fonts, headings); others take layout arguments. */
const TEXT_MACRO = /^\.(B|I|BR|BI|IB|IR|RB|RI|SH|SS|Nm|Nd|Ar|Fl|Sh|Ss)\s/

/** A page's words without its markup: macros' arguments kept, comments, escapes and font changes dropped. */
function plainText(roff: string): string {
	return roff
		.split('\n')
		.filter((line) => !line.startsWith('.\\"') && !line.startsWith('\'\\"'))
		.map((line) => (line.startsWith('.') ? (TEXT_MACRO.test(line) ? line.replace(/^\.\S*\s?/, '') : '') : line))
		.join('\n')
		.replace(/\\f(\[[^\]]*\]|\(..|.)/g, '')
		.replace(/\\\((..)/g, ' ')
		.replace(/\\-/g, '-')
		.replace(/\\e/g, '\\')
		.replace(/\\[&,/|^:]/g, '')
		.replace(/\\s[-+]?\d/g, '')
		.replace(/"/g, '')
}

function* cut(text: string): Generator<string> {
	let passage = ''
	for (const line of text.split('\n')) {
		const words = line.trim().replace(/\s+/g, ' ')
		if (!words) continue
		passage = passage ? `${passage} ${words}` : words
		if (passage.length >= PASSAGE_CHARS) {
			if (isProse(passage)) yield passage.slice(0, PASSAGE_CHARS * 2)
			passage = ''
		}
	}
}

/** Mostly plain words: not test logs, file lists, tables of flags or markup. */
function isProse(passage: string): boolean {
	if (/<\/?[a-z]+[ >]/.test(passage)) return false
	const words = passage.split(' ')
	return words.filter((word) => /^[A-Za-z][a-z']*[,.;:]?$/.test(word)).length >= words.length * 0.8
}
