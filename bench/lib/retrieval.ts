import { sessionOf, type Turn, turnLine } from './locomo-data.ts'

/** One returned text, in rank order, with the evidence turns it carries. */
export interface WalkItem {
	words: number
	/** Turns inside this text, each with the word count up to where it ends in the text. */
	turns: { diaId: string; endWord: number }[]
	/** Sessions this text comes from (a memory may have several). */
	sessions: number[]
}

export const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length

/**
 * Which turns a chunk of a session holds, and where each ends: a turn counts when its whole `Speaker: text` line is
 * in the chunk, or, for a long turn the chunker split, where the end of its text is.
 */
export function chunkItem(content: string, sessionTurns: Turn[], session: number): WalkItem {
	const turns: WalkItem['turns'] = []
	for (const turn of sessionTurns) {
		const line = turnLine(turn)
		let end = content.indexOf(line)
		if (end >= 0) end += line.length
		else {
			const tail = turn.text.slice(-60)
			const at = tail.length >= 20 ? content.indexOf(tail) : -1
			end = at >= 0 ? at + tail.length : -1
		}
		if (end >= 0) turns.push({ diaId: turn.diaId, endWord: wordCount(content.slice(0, end)) })
	}
	return { words: wordCount(content), turns, sessions: [session] }
}

export interface QuestionScore {
	/** Per budget: at least one evidence turn lies inside the budget (the dev-set BM25 figure of ~0.78 at 1,000). */
	anyFound: boolean[]
	/** Per budget: every evidence turn lies inside the budget. */
	allFound: boolean[]
	/** Per budget: the share of evidence turns inside the budget. */
	turnRecall: number[]
	sessionRecallAt1: number
	sessionRecallAt5: number
	reciprocalRank: number
}

/**
 * Walks results in rank order adding up their words; an evidence turn counts at a budget when the words before it
 * (earlier results, and its own text up to the turn's end) fit in the budget. Sessions are ranked by first appearance.
 */
export function scoreWalk(items: WalkItem[], evidence: string[], budgets: number[]): QuestionScore {
	const foundAt = new Map<string, number>()
	const sessionOrder: number[] = []
	let before = 0
	for (const item of items) {
		for (const { diaId, endWord } of item.turns) {
			if (!foundAt.has(diaId)) foundAt.set(diaId, before + endWord)
		}
		for (const session of item.sessions) if (!sessionOrder.includes(session)) sessionOrder.push(session)
		before += item.words
	}
	const wanted = [...new Set(evidence)]
	const relevant = new Set(wanted.map(sessionOf))
	const inBudget = (budget: number) => wanted.filter((id) => (foundAt.get(id) ?? Number.POSITIVE_INFINITY) <= budget)
	const recallAt = (k: number) => sessionOrder.slice(0, k).filter((s) => relevant.has(s)).length / relevant.size
	const firstRelevant = sessionOrder.findIndex((s) => relevant.has(s))
	return {
		anyFound: budgets.map((budget) => inBudget(budget).length > 0),
		allFound: budgets.map((budget) => inBudget(budget).length === wanted.length),
		turnRecall: budgets.map((budget) => inBudget(budget).length / wanted.length),
		sessionRecallAt1: recallAt(1),
		sessionRecallAt5: recallAt(5),
		reciprocalRank: firstRelevant >= 0 ? 1 / (firstRelevant + 1) : 0,
	}
}
