/** The v5 operation groups of the OpenAPI documents (each prefixed so Swagger lists them apart from v3/v4). */
export const V5_TAGS = {
	documents: 'v5 documents',
	search: 'v5 search',
	profile: 'v5 profile',
	memories: 'v5 memories',
	list: 'v5 list',
	connectors: 'v5 connectors',
	namespaces: 'v5 namespaces',
	organization: 'v5 organization',
	feedback: 'v5 feedback',
} as const

export const V5_TAG_DESCRIPTIONS = [
	{ name: V5_TAGS.documents, description: 'v5: add, append, batch, read, update and delete documents in a namespace' },
	{ name: V5_TAGS.search, description: 'v5: search memories and chunks of a namespace (hybrid by default)' },
	{ name: V5_TAGS.profile, description: "v5: a namespace's profile facts and its buckets" },
	{ name: V5_TAGS.memories, description: 'v5: read and forget memories' },
	{ name: V5_TAGS.list, description: 'v5: paginated documents, chunks or memories' },
	{ name: V5_TAGS.connectors, description: 'v5: connectors that sync providers into namespaces' },
	{ name: V5_TAGS.namespaces, description: 'v5: namespaces (container tags) with counts, settings and deletion' },
	{ name: V5_TAGS.organization, description: "v5: the organization's context" },
	{ name: V5_TAGS.feedback, description: 'v5: send feedback' },
]
