/**
 * Prints the statements extractor-rules draws from one session of a LoCoMo conversation, beside the turns, so their
 * quality can be read:
 *
 *   bun bench/inspect-locomo.ts [conversation] [session] [--summary]
 *
 * conversation: a file name in LOCOMO_DIR (see lib/locomo-data.ts) without `.json` (default: the first); session: a number
 * (default 1). `--summary` instead prints, for every session of every conversation, how many statements were kept
 * and how many question evidence turns still have a statement. Skips cleanly when the data set is absent.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ConversationTurn, ExtractionInput, MemoryCandidate } from '../core/index.ts'
import { extractorRules } from '../plugins/extractor-rules/index.ts'
import { LOCOMO_DIR as DATASET } from './lib/locomo-data.ts'

interface LocomoTurn {
	speaker: string
	dia_id: string
	text: string
}

type Conversation = Record<string, unknown> & { qa?: { evidence?: string[] }[] }

if (!existsSync(DATASET)) {
	console.log(`No LoCoMo data at ${DATASET}; nothing to inspect.`)
	process.exit(0)
}

const files = readdirSync(DATASET)
	.filter((file) => file.endsWith('.json'))
	.sort()
const args = process.argv.slice(2)
const summary = args.includes('--summary')
const [conversationArg, sessionArg] = args.filter((arg) => !arg.startsWith('--'))
const extractor = extractorRules()
await extractor.init?.({} as never)

function load(file: string): Conversation {
	return JSON.parse(readFileSync(join(DATASET, file), 'utf8')) as Conversation
}

/** LoCoMo writes "1:56 pm on 8 May, 2023"; the contract wants ISO 8601. */
function isoDate(written: unknown): string | null {
	const match = /(\d{1,2}) (\w+),? (\d{4})/.exec(String(written ?? ''))
	if (!match) return null
	const parsed = new Date(`${match[2]} ${match[1]}, ${match[3]} 12:00 UTC`)
	return Number.isNaN(parsed.getTime()) ? null : parsed.toISOString().slice(0, 10)
}

function sessionInput(
	conversation: Conversation,
	session: number,
): { input: ExtractionInput; turns: LocomoTurn[] } | null {
	const turns = conversation[`session_${session}`] as LocomoTurn[] | undefined
	if (!Array.isArray(turns)) return null
	const parsed: ConversationTurn[] = turns.map((turn, index) => ({ speaker: turn.speaker, text: turn.text, index }))
	const text = parsed.map((turn) => `${turn.speaker}: ${turn.text}`).join('\n')
	return {
		turns,
		input: {
			documentId: `session-${session}`,
			containerTag: 'locomo',
			text,
			turns: parsed,
			date: isoDate(conversation[`session_${session}_date_time`]),
			entityContext: null,
			chunks: [{ position: 0, content: text }],
		},
	}
}

function describe(candidate: MemoryCandidate): string {
	const key = candidate.attribute ? ` [${candidate.subject} · ${candidate.attribute} = ${candidate.value}]` : ''
	const dates = candidate.eventDates.length > 0 ? ` {${candidate.eventDates.join(', ')}}` : ''
	return `${candidate.isStatic ? 'S' : '-'} ${candidate.content}${key}${dates}`
}

if (summary) {
	let statements = 0
	let turnsTotal = 0
	let evidenceTotal = 0
	let evidenceKept = 0
	let elapsed = 0
	let characters = 0
	for (const file of files) {
		const conversation = load(file)
		const evidence = new Set((conversation.qa ?? []).flatMap((qa) => qa.evidence ?? []))
		for (let session = 1; ; session++) {
			const loaded = sessionInput(conversation, session)
			if (!loaded) break
			const started = performance.now()
			const candidates = await extractor.extract(loaded.input)
			elapsed += performance.now() - started
			characters += loaded.input.text.length
			const covered = new Set(candidates.flatMap((candidate) => candidate.sourceTurns))
			statements += candidates.length
			turnsTotal += loaded.turns.length
			for (const [index, turn] of loaded.turns.entries()) {
				if (!evidence.has(turn.dia_id)) continue
				evidenceTotal++
				if (covered.has(index)) evidenceKept++
			}
		}
	}
	console.log(`turns ${turnsTotal}, statements ${statements} (${(statements / turnsTotal).toFixed(2)} per turn)`)
	console.log(
		`evidence turns with a statement: ${evidenceKept}/${evidenceTotal} (${((100 * evidenceKept) / evidenceTotal).toFixed(1)}%)`,
	)
	console.log(`extraction: ${((elapsed / characters) * 1000).toFixed(2)} ms per 1,000 characters`)
	process.exit(0)
}

const file = conversationArg ? `${conversationArg}.json` : files[0]
if (!file || !files.includes(file)) {
	console.log(
		`No conversation ${conversationArg}; choose one of ${files.map((name) => name.replace(/\.json$/, '')).join(', ')}`,
	)
	process.exit(0)
}
const conversation = load(file)
const session = Number(sessionArg ?? 1)
const loaded = sessionInput(conversation, session)
if (!loaded) {
	console.log(`${file} has no session ${session}`)
	process.exit(0)
}
const candidates = await extractor.extract(loaded.input)
console.log(
	`${file} session ${session}, ${loaded.input.date}: ${loaded.turns.length} turns, ${candidates.length} statements\n`,
)
for (const [index, turn] of loaded.turns.entries()) {
	console.log(`${turn.dia_id} ${turn.speaker}: ${turn.text}`)
	for (const candidate of candidates.filter((candidate) => candidate.sourceTurns[0] === index)) {
		console.log(`    ${describe(candidate)}`)
	}
}
