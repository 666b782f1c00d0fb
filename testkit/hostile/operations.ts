/** One operation of the OpenAPI document and the inputs it takes. */
export interface Operation {
	method: string
	/** The OpenAPI path, such as `/v3/documents/{id}`. */
	path: string
	pathParams: string[]
	queryParams: string[]
	/** Top-level body fields (from the document, or the fields the API uses when the document leaves the body open). */
	bodyFields: string[]
	multipart: boolean
	/** True when the operation needs no key. */
	public: boolean
}

/** Body fields of the Supermemory API, tried on every operation whose body schema the document does not spell out. */
export const API_FIELDS = [
	'content',
	'containerTag',
	'containerTags',
	'customId',
	'metadata',
	'q',
	'query',
	'filters',
	'filterPrompt',
	'id',
	'ids',
	'entityContext',
	'conversationId',
	'memories',
	'messages',
	'documents',
	'sourceTags',
	'targetTag',
	'docId',
	'searchMode',
]

type Json = Record<string, any>

export function operationsOf(document: Json): Operation[] {
	const operations: Operation[] = []
	for (const [path, methods] of Object.entries<Json>(document.paths ?? {})) {
		for (const [method, operation] of Object.entries<Json>(methods)) {
			const parameters = (operation.parameters ?? []) as { name: string; in: string }[]
			const content = operation.requestBody?.content as Json | undefined
			// Elysia lists form encodings beside JSON for every body: only a body without JSON is sent as a form.
			const multipart = Boolean(content?.['multipart/form-data']) && !content?.['application/json']
			const schema = (content?.['application/json'] ?? content?.['multipart/form-data'])?.schema as Json | undefined
			const declared = schema?.properties ? Object.keys(schema.properties) : []
			const hasBody = operation.requestBody !== undefined
			operations.push({
				method: method.toUpperCase(),
				path,
				pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
				queryParams: parameters.filter((p) => p.in === 'query').map((p) => p.name),
				bodyFields: !hasBody
					? []
					: multipart
						? declared.filter((f) => f !== 'file')
						: [...new Set([...declared, ...API_FIELDS])],
				multipart,
				public: Array.isArray(operation.security) && operation.security.length === 0,
			})
		}
	}
	return operations
}

/** A body field set to a value, placed where that field takes text (inside arrays and objects where it holds them). */
export function bodyWith(field: string, value: string): Json {
	switch (field) {
		case 'containerTags':
		case 'ids':
		case 'sourceTags':
			return { [field]: [value] }
		case 'metadata':
			return { metadata: { [value]: value } }
		case 'filters':
			return { q: 'drill', filters: { AND: [{ key: value, value }] } }
		case 'memories':
			return { containerTag: 'drill', memories: [{ content: value }] }
		case 'messages':
			return { conversationId: 'drill', messages: [{ role: 'user', content: value }] }
		case 'documents':
			return { documents: [{ content: value }] }
		default:
			return { [field]: value }
	}
}
