import type { Migration } from './schema.ts'

/**
 * `common_lexemes(table, lexemes, postings)`: those of `lexemes` that the table's statistics (`most_common_elems` of
 * its tsv) count more than `postings` of. The full-text search leaves out the tier of such a word once the tiers of
 * several words have found enough rows (text-candidates.ts). A PL/pgSQL function keeps its plan for the session: the
 * same read inline added the planning of the pg_stats view to every search (0.7 ms).
 */
export const COMMON_LEXEMES_MIGRATION: Migration = {
	version: 33,
	name: 'common lexemes by the statistics',
	sql: () => `
CREATE OR REPLACE FUNCTION common_lexemes(tbl regclass, lexemes text[], postings float8) RETURNS text[]
LANGUAGE plpgsql STABLE AS $$
BEGIN
	RETURN (
		SELECT coalesce(array_agg(e.lexeme), '{}') FROM pg_class t
		JOIN pg_stats s ON s.schemaname = t.relnamespace::regnamespace::name AND s.tablename = t.relname AND s.attname = 'tsv'
		CROSS JOIN unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(lexeme, frequency)
		WHERE t.oid = tbl AND t.reltuples > postings AND e.frequency * t.reltuples > postings AND e.lexeme = ANY(lexemes)
	);
END
$$;
`,
}
