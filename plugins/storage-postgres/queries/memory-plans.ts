import type { FormationProbe, MemorySearchQuery, Scope } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { readCommonWords } from './common-words.ts'
import { explainWith } from './explain.ts'
import { contextParams, contextStatement, FORMATION_SCAN, INDEX_READ_PLANNER } from './memory-form.ts'
import { ACTIVE, LINKABLE_COLUMNS } from './memory-rows.ts'
import { MEMORY_EF_SEARCH, memoryTextStatement, memoryVectorStatement } from './memory-search.ts'
import type { Statement } from './params.ts'
import { vectorScanSettings } from './search.ts'
import type { LocalSettings } from './set-local.ts'
import { queryWords } from './text-candidates.ts'

/**
 * Query plans (EXPLAIN) of the memory searches and of the formation's fact and text lookups, to check the indexes
 * they use. `settings` are SET LOCAL for the explained transaction only, e.g. `{ enable_seqscan: 'off' }`; with
 * `analyze` the statements run and the plans carry actual row counts (EXPLAIN ANALYZE). The full-text plan is of the
 * match tiers, as a scope with more matches than one scan ranks is searched.
 */
export async function memoryPlans(
	db: Db,
	scope: Scope,
	query: MemorySearchQuery,
	containerTag: string,
	settings: LocalSettings = {},
	options: { analyze?: boolean } = {},
): Promise<{ vector: string; text: string | null; facts: string; contentKeys: string }> {
	const explain = (statement: Statement) =>
		explainWith(
			db,
			{ ...vectorScanSettings({ efSearch: MEMORY_EF_SEARCH }), ...settings },
			statement,
			options.analyze ? ['ANALYZE'] : [],
		)
	const words = queryWords(query.terms)
	return {
		vector: await explain(memoryVectorStatement(scope, query)),
		text:
			words.length > 0
				? await explain(memoryTextStatement(scope, query, words, 'tiers', await readCommonWords(db, 'memories', words)))
				: null,
		facts: await explain({
			text: `SELECT ${LINKABLE_COLUMNS} FROM memories m
				JOIN unnest($3::text[], $4::text[]) AS fact(subject, attribute)
					ON m.subject = fact.subject AND m.attribute = fact.attribute
				WHERE m.org_id = $1 AND m.container_tag = $2 AND m.is_latest AND ${ACTIVE}`,
			params: [scope.orgId, containerTag, ['alex'], ['residence']],
		}),
		contentKeys: await explain({
			text: `SELECT ${LINKABLE_COLUMNS} FROM memories m
				WHERE m.org_id = $1 AND m.container_tag = $2 AND m.is_latest AND ${ACTIVE} AND m.content_key = ANY($3::text[])`,
			params: [scope.orgId, containerTag, ['alex lives in boston']],
		}),
	}
}

/**
 * The executed plan (EXPLAIN ANALYZE of the read, which writes nothing) of a formation's context read, exact or
 * through the HNSW index (as a formation in a container known to be large runs it): to check which parts ran.
 */
export function formationReadPlan(
	db: Db,
	scope: Scope,
	containerTag: string,
	probe: FormationProbe,
	near: 'exact' | 'index',
): Promise<string> {
	return explainWith(
		db,
		{ ...FORMATION_SCAN, ...(near === 'index' ? INDEX_READ_PLANNER : {}) },
		{ text: contextStatement(near), params: contextParams(scope, containerTag, probe) },
		['ANALYZE', 'COSTS OFF'],
	)
}
