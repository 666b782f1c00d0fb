import { Elysia } from 'elysia'
import { writeTag } from '../../auth/restriction.ts'
import { DEFAULT_CONTAINER_TAG } from '../../documents/service.ts'
import { CONVERSATION_SOURCE } from '../../memory/conversation.ts'
import { renderMessages } from '../../memory/messages.ts'
import { bearerAuth } from '../auth.ts'
import { oneTag } from '../one-tag.ts'
import type { RouteDeps } from '../route-deps.ts'
import { errorResponses } from '../schemas/common.ts'
import { ConversationAck, ConversationBody } from '../schemas/conversations.ts'

/**
 * POST /v4/conversations: the whole session is one document (customId = conversationId) holding its messages as
 * `speaker: text` lines. Re-sending it with more messages re-chunks it, and memory formation extracts only the
 * messages after the ones extracted before. Answers exactly 200 (the published v5 client requires it).
 */
export function conversationRoutes({ verify, documents }: RouteDeps) {
	return new Elysia().use(bearerAuth(verify)).post(
		'/v4/conversations',
		async ({ body, scope, principal }) => {
			const document = await documents.add(scope, {
				content: renderMessages(body.messages),
				containerTag: writeTag(principal, oneTag(undefined, body.containerTags)) ?? DEFAULT_CONTAINER_TAG,
				customId: body.conversationId,
				metadata: body.metadata,
				dreaming: body.dreaming,
				source: CONVERSATION_SOURCE,
			})
			return { id: document.id, status: document.status }
		},
		{
			body: ConversationBody,
			response: { 200: ConversationAck, ...errorResponses },
			detail: {
				tags: ['conversations'],
				summary: 'Ingest or update a conversation; re-sending with more messages processes only the new ones',
			},
		},
	)
}
