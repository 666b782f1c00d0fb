import { t } from 'elysia'
import {
	ContainerTag,
	ContainerTags,
	DateTime,
	Filters,
	MetadataOut,
	QueryText,
	SearchLimit,
	UnitInterval,
} from './common.ts'
import { REQUEST_EXAMPLES } from './examples.ts'

const Include = t.Object(
	{
		documents: t.Optional(
			t.Boolean({ description: "Add each memory result's source documents (title, type, metadata)" }),
		),
		summaries: t.Optional(t.Boolean({ description: "Add the source documents' summaries" })),
		relatedMemories: t.Optional(
			t.Boolean({ description: 'Add context: older and newer versions, and extends/derives neighbours' }),
		),
		forgottenMemories: t.Optional(t.Boolean({ description: 'Also return forgotten and expired memories' })),
		chunks: t.Optional(
			t.Boolean({ description: 'Deprecated: memory results carry matching chunks of their documents' }),
		),
	},
	{ additionalProperties: false },
)

export const MemorySearchBody = t.Object(
	{
		q: QueryText,
		containerTag: t.Optional(ContainerTag),
		containerTags: t.Optional(ContainerTags),
		threshold: t.Optional(UnitInterval('Minimum similarity (default 0.6); 0 returns the most results')),
		filters: t.Optional(Filters),
		include: t.Optional(Include),
		limit: t.Optional(SearchLimit),
		rerank: t.Optional(
			t.Boolean({ description: 'Rerank with the configured reranker plugin; a no-op when none is configured' }),
		),
		aggregate: t.Optional(t.Boolean({ description: 'Accepted; a no-op (synthesising memories needs an LLM)' })),
		rewriteQuery: t.Optional(t.Boolean({ description: 'Accepted; a no-op (rewriting the query needs an LLM)' })),
		searchMode: t.Optional(
			t.UnionEnum(['memories', 'hybrid', 'documents'], {
				error: 'must be "memories", "hybrid" or "documents"',
				default: undefined,
			}),
		),
		filepath: t.Optional(
			t.String({ minLength: 1, description: 'Chunks of documents at this path (a prefix when it ends with /)' }),
		),
	},
	{ additionalProperties: false, examples: [REQUEST_EXAMPLES.memorySearch] },
)

const ContextItem = t.Object({
	relation: t.UnionEnum(['updates', 'extends', 'derives']),
	version: t.Nullable(t.Number({ description: '-1 parent, -2 grandparent; +1 child, +2 grandchild' })),
	memory: t.String(),
	metadata: MetadataOut,
	updatedAt: DateTime,
})

const RelatedItem = t.Object({
	relation: t.UnionEnum(['extends', 'derives']),
	memory: t.String(),
	metadata: MetadataOut,
	updatedAt: DateTime,
})

const ResultDocument = t.Object({
	id: t.String(),
	createdAt: DateTime,
	updatedAt: DateTime,
	title: t.Optional(t.Nullable(t.String())),
	type: t.Optional(t.String()),
	metadata: t.Optional(MetadataOut),
	summary: t.Optional(t.Nullable(t.String())),
})

export const MemorySearchResponse = t.Object({
	results: t.Array(
		t.Object({
			id: t.String({ description: 'Memory id, or chunk id for chunk results' }),
			type: t.UnionEnum(['memory', 'chunk']),
			memory: t.Optional(t.String()),
			chunk: t.Optional(t.String()),
			similarity: t.Number({ description: '0..1' }),
			metadata: MetadataOut,
			updatedAt: DateTime,
			version: t.Optional(t.Nullable(t.Number())),
			rootMemoryId: t.Optional(t.Nullable(t.String())),
			isAggregated: t.Optional(t.Boolean()),
			documentId: t.Optional(t.String()),
			position: t.Optional(t.Number()),
			provisional: t.Optional(
				t.Boolean({
					description:
						'A chunk standing in for a document whose memories are still forming (dynamic dreaming); gone once they exist',
				}),
			),
			context: t.Optional(
				t.Object({ parents: t.Array(ContextItem), children: t.Array(ContextItem), related: t.Array(RelatedItem) }),
			),
			documents: t.Optional(t.Array(ResultDocument)),
			chunks: t.Optional(
				t.Array(t.Object({ content: t.String(), score: t.Number(), position: t.Number(), documentId: t.String() })),
			),
		}),
	),
	timing: t.Number({ description: 'Server time in milliseconds' }),
	total: t.Number({ description: 'Number of results returned' }),
})
