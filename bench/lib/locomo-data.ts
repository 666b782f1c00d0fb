import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

/**
 * The LoCoMo conversations the benchmarks read (one JSON file per conversation, as LoCoMo publishes them):
 * `LOCOMO_DIR`, else the dev split kept beside the repository (`../shared/datasets/locomo-dev`).
 */
export const LOCOMO_DIR = process.env.LOCOMO_DIR
	? resolve(process.env.LOCOMO_DIR)
	: join(import.meta.dir, '..', '..', '..', 'shared', 'datasets', 'locomo-dev')

export interface Turn {
	diaId: string
	session: number
	speaker: string
	text: string
}

export interface Session {
	number: number
	date: string | null
	turns: Turn[]
}

export interface Question {
	question: string
	evidence: string[]
	category: number
}

export interface Conversation {
	id: string
	sessions: Session[]
	questions: Question[]
}

/** LoCoMo's question categories. */
export const CATEGORIES: Record<number, string> = {
	1: 'multi-hop',
	2: 'temporal',
	3: 'open-domain',
	4: 'single-hop',
	5: 'adversarial',
}

/** A turn as it appears in an ingested session: one `Speaker: text` line. */
export const turnLine = (turn: Turn) => `${turn.speaker}: ${turn.text}`

export const sessionOf = (diaId: string) => Number(/^D(\d+):/.exec(diaId)?.[1] ?? Number.NaN)

export function loadConversations(dir = LOCOMO_DIR): Conversation[] | null {
	if (!existsSync(dir)) return null
	return readdirSync(dir)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => parseConversation(file.replace(/\.json$/, ''), JSON.parse(readFileSync(join(dir, file), 'utf8'))))
}

function parseConversation(id: string, raw: Record<string, any>): Conversation {
	const sessions: Session[] = Object.keys(raw)
		.flatMap((key) => {
			const match = /^session_(\d+)$/.exec(key)
			return match ? [Number(match[1])] : []
		})
		.sort((a, b) => a - b)
		.map((number) => ({
			number,
			date: raw[`session_${number}_date_time`] ?? null,
			turns: (raw[`session_${number}`] as { speaker: string; dia_id: string; text: string }[]).map((turn) => ({
				diaId: turn.dia_id,
				session: number,
				speaker: turn.speaker,
				// One line per turn: the transcript format has no multi-line turns.
				text: String(turn.text).replace(/\s+/g, ' ').trim(),
			})),
		}))
	// Entries without evidence cannot be scored for retrieval.
	const questions = ((raw.qa ?? []) as { question: string; evidence?: string[]; category: number }[])
		.filter((qa) => Array.isArray(qa.evidence) && qa.evidence.length > 0)
		.map((qa) => ({
			question: qa.question,
			// A few evidence ids in LoCoMo carry stray spaces or list two ids in one string.
			evidence: qa.evidence!.flatMap((id) => id.split(/[;,\s]+/)).filter((id) => /^D\d+:\d+$/.test(id)),
			category: qa.category,
		}))
		.filter((qa) => qa.evidence.length > 0)
	return { id, sessions, questions }
}
