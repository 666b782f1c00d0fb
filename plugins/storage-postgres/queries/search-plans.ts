import type { ChunkSearchQuery, Scope } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { readCommonWords } from './common-words.ts'
import { explainWith } from './explain.ts'
import type { Statement } from './params.ts'
import { chunkTextStatement, TIER_SCANS, vectorScanSettings, vectorSearchStatement } from './search.ts'
import type { LocalSettings } from './set-local.ts'
import { queryWords } from './text-candidates.ts'

/**
 * The query plans (EXPLAIN) of the vector and the full-text search for a query, to check which indexes they use.
 * `settings` are SET LOCAL for the explained transaction only, e.g. `{ enable_seqscan: 'off' }`; with `analyze` the
 * searches run and the plans carry actual row counts and times (EXPLAIN ANALYZE), with `buffers` the pages read too.
 */
export async function searchPlans(
	db: Db,
	scope: Scope,
	query: ChunkSearchQuery,
	settings: LocalSettings = {},
	options: { analyze?: boolean; buffers?: boolean } = {},
): Promise<{ vector: string; text: string | null }> {
	const explain = (statement: Statement, own: LocalSettings) =>
		explainWith(
			db,
			{ ...own, ...settings },
			statement,
			options.analyze ? ['ANALYZE', ...(options.buffers ? ['BUFFERS'] : [])] : [],
		)
	// The statements a search runs first (publication checked on the answer; see publishedRows); for full text, the
	// match tiers of a scope with more matches than one scan ranks (PLAIN_RANK_ROWS).
	const words = queryWords(query.terms)
	return {
		vector: await explain(vectorSearchStatement(scope, query, 'answer'), vectorScanSettings()),
		text:
			words.length > 0
				? await explain(
						chunkTextStatement(scope, query, words, 'tiers', 'answer', await readCommonWords(db, 'chunks', words)),
						TIER_SCANS,
					)
				: null,
	}
}
