import bm25 from 'wink-bm25-text-search'
import model from 'wink-eng-lite-web-model'
import winkNLP from 'wink-nlp'

const nlp = winkNLP(model)
const its = nlp.its

/** Lower-cased words without stop words, Porter2-stemmed (numbers kept as written), by wink-nlp. */
export function bm25Tokens(text: string): string[] {
	const tokens = nlp
		.readDoc(text)
		.tokens()
		.filter((token) => {
			const type = token.out(its.type)
			return (type === 'word' || type === 'number') && !token.out(its.stopWordFlag)
		})
	const types = tokens.out(its.type)
	const normals = tokens.out(its.normal)
	// wink-nlp's typings miss the addon argument its.stem takes at run time.
	const stems = tokens.out(its.stem as any) as string[]
	return types.map((type, i) => (type === 'number' ? normals[i]! : stems[i]!))
}

export interface Bm25Index {
	/** Ids of the best `limit` texts, best first. */
	search(query: string, limit: number): string[]
}

/**
 * Okapi BM25 (k1 1.2, b 0.75) over the given texts with wink-bm25-text-search, the BM25 engine of the wink NLP
 * family this project already uses for tokens and stems.
 */
export function buildBm25(texts: { id: string; text: string }[]): Bm25Index {
	const engine = bm25()
	engine.defineConfig({ fldWeights: { text: 1 }, bm25Params: { k1: 1.2, b: 0.75, k: 1 } })
	engine.definePrepTasks([(text: string) => bm25Tokens(text)])
	for (const { id, text } of texts) engine.addDoc({ text }, id)
	engine.consolidate()
	return {
		search: (query, limit) => engine.search(query, limit).map(([id]: [string, number]) => id),
	}
}
