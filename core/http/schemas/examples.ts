/**
 * The request bodies Swagger UI fills in for "Try it out" (it takes a schema's `examples` before generating one from
 * the types). They tell one story in the order of the document, so each works as filled in: Marie's preferences in
 * container `user_1`, a memory written, versioned and forgotten by its text, and a team's notes (`team_1`) merged
 * into `team_all`, then deleted.
 */
export const EXAMPLE_TAG = 'user_1'

export const REQUEST_EXAMPLES = {
	addDocument: {
		content: 'Marie prefers oat milk in her cappuccino.',
		containerTag: EXAMPLE_TAG,
		metadata: { source: 'chat' },
	},
	updateDocument: { content: 'Marie now prefers almond milk in her cappuccino.', metadata: { source: 'chat' } },
	batch: {
		documents: [
			{ content: 'The office wifi password rotates every Monday.', customId: 'wifi-policy' },
			{ content: 'Lunch is served at noon on Fridays.' },
		],
		containerTag: 'team_1',
	},
	listDocuments: { containerTags: [EXAMPLE_TAG], limit: 10, page: 1, order: 'desc', sort: 'createdAt' },
	bulkDelete: { containerTags: ['team_all'] },
	documentSearch: { q: 'what milk does Marie like', containerTag: EXAMPLE_TAG, limit: 10 },
	memorySearch: { q: 'what milk does Marie like', containerTag: EXAMPLE_TAG, limit: 10, threshold: 0.6 },
	createMemories: {
		containerTag: EXAMPLE_TAG,
		memories: [{ content: 'Marie works as a nurse in Lyon.', isStatic: true, metadata: { source: 'onboarding' } }],
	},
	updateMemory: {
		containerTag: EXAMPLE_TAG,
		content: 'Marie works as a nurse in Lyon.',
		newContent: 'Marie works as a nurse in Paris.',
	},
	forgetMemory: { containerTag: EXAMPLE_TAG, content: 'Marie works as a nurse in Paris.', reason: 'she changed jobs' },
	forgetMatching: { containerTag: EXAMPLE_TAG, query: 'oat milk', dryRun: true, maxForget: 10 },
	listMemories: { containerTags: [EXAMPLE_TAG], limit: 10, page: 1, order: 'desc', sort: 'updatedAt' },
	conversation: {
		conversationId: 'chat-2024-05-01',
		messages: [
			{ role: 'user', content: 'I just adopted a puppy named Max.' },
			{ role: 'assistant', content: 'Congratulations! How old is Max?' },
		],
		containerTags: [EXAMPLE_TAG],
	},
	settings: { chunkSize: 800, profileBuckets: [{ key: 'work', description: 'Job, colleagues and projects' }] },
	profile: { containerTag: EXAMPLE_TAG, q: 'what does Marie drink' },
	profileBuckets: { containerTag: EXAMPLE_TAG },
	containerTag: { name: 'Marie', entityContext: 'Marie is a regular at the café.' },
	merge: { containerTags: ['team_1'], targetContainerTag: 'team_all' },
	createKey: { name: 'assistant for user_1', expiresInDays: 90, containerTags: [EXAMPLE_TAG] },
	// The slug of the organization the first start creates; resetting it deletes everything it holds.
	reset: { confirmation: 'default' },
}
