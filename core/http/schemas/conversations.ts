import { t } from 'elysia'
import { Dreaming } from './common.ts'
import { REQUEST_EXAMPLES } from './examples.ts'

const ContentPart = t.Union(
	[
		t.Object({ type: t.Literal('text'), text: t.String() }),
		t.Object({ type: t.Literal('image_url'), imageUrl: t.Object({ url: t.String({ minLength: 1 }) }) }),
	],
	{ error: 'must be {type: "text", text} or {type: "image_url", imageUrl: {url}}' },
)

export const ConversationBody = t.Object(
	{
		conversationId: t.String({
			minLength: 1,
			maxLength: 255,
			error: 'must be 1 to 255 characters',
			description: 'Stable id of the conversation: re-sending it updates the same document (its customId)',
		}),
		messages: t.Array(
			t.Object({
				role: t.UnionEnum(['user', 'assistant', 'system', 'tool'], {
					error: 'must be "user", "assistant", "system" or "tool"',
				}),
				content: t.Union([t.String(), t.Array(ContentPart)], { error: 'must be a string or an array of parts' }),
				name: t.Optional(t.String({ maxLength: 100, description: 'Shown as the speaker when given' })),
				tool_calls: t.Optional(t.Array(t.Unknown())),
				tool_call_id: t.Optional(t.String()),
			}),
			{ minItems: 1, maxItems: 10_000, error: 'must list at least one message' },
		),
		containerTags: t.Optional(
			t.Array(t.String({ minLength: 1, maxLength: 100, pattern: '^[a-zA-Z0-9_:-]+$' }), {
				maxItems: 100,
				error: 'must be tags of 1 to 100 letters, digits, "_", ":" or "-"',
			}),
		),
		metadata: t.Optional(
			t.Record(t.String({ minLength: 1, maxLength: 256 }), t.Union([t.String(), t.Number(), t.Boolean()]), {
				error: 'must be an object whose values are strings, numbers or booleans',
				description:
					'Flat metadata of the conversation document; a `date` (or `documentDate`) value dates the conversation, so relative dates in it ("last week") resolve against it',
			}),
		),
		dreaming: t.Optional(t.Union([Dreaming], { description: 'Extension: instant or dynamic (default)' })),
	},
	{ additionalProperties: false, examples: [REQUEST_EXAMPLES.conversation] },
)

export const ConversationAck = t.Object({ id: t.String(), status: t.String() })
