import { t } from 'elysia'
import { ContainerTag, ContainerTags, DateTime, Filters, QueryText, SearchLimit, UnitInterval } from './common.ts'
import { REQUEST_EXAMPLES } from './examples.ts'

export const DocumentSearchBody = t.Object(
	{
		q: QueryText,
		containerTag: t.Optional(ContainerTag),
		containerTags: t.Optional(ContainerTags),
		limit: t.Optional(SearchLimit),
		chunkThreshold: t.Optional(UnitInterval('Minimum chunk score; 0 returns the most chunks')),
		documentThreshold: t.Optional(UnitInterval('Deprecated; accepted and ignored')),
		docId: t.Optional(t.String({ minLength: 1, maxLength: 255, description: 'Search inside one document' })),
		filters: t.Optional(Filters),
		includeFullDocs: t.Optional(t.Boolean()),
		includeSummary: t.Optional(t.Boolean()),
		onlyMatchingChunks: t.Optional(t.Boolean({ description: 'false adds the chunks before and after each match' })),
		rerank: t.Optional(
			t.Boolean({ description: 'Rerank with the configured reranker plugin; a no-op when none is configured' }),
		),
		rewriteQuery: t.Optional(t.Boolean({ description: 'Accepted; a no-op until an LLM plugin is configured' })),
		categoriesFilter: t.Optional(t.Array(t.String())),
		filepath: t.Optional(t.String({ minLength: 1 })),
		searchMode: t.Optional(t.String({ description: 'Accepted for compatibility; v3 search always returns documents' })),
	},
	{ examples: [REQUEST_EXAMPLES.documentSearch] },
)

export const DocumentSearchResponse = t.Object({
	results: t.Array(
		t.Object({
			documentId: t.String(),
			title: t.Nullable(t.String()),
			type: t.Nullable(t.String()),
			score: t.Number(),
			metadata: t.Nullable(t.Record(t.String(), t.Unknown())),
			createdAt: DateTime,
			updatedAt: DateTime,
			chunks: t.Array(
				t.Object({ content: t.String(), isRelevant: t.Boolean(), score: t.Number(), position: t.Number() }),
			),
			summary: t.Optional(t.Nullable(t.String())),
			content: t.Optional(t.Nullable(t.String())),
		}),
	),
	timing: t.Number({ description: 'Server time in milliseconds' }),
	total: t.Number(),
})
