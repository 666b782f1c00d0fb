import { t } from 'elysia'
import { BoundedInteger, ContainerTag, DateTime } from './common.ts'
import { REQUEST_EXAMPLES } from './examples.ts'

export const CreateKeyBody = t.Object(
	{
		name: t.String({
			minLength: 1,
			maxLength: 100,
			pattern: '\\S',
			error: 'must be 1 to 100 characters, not only spaces',
			description: 'A label to recognise the key by',
		}),
		expiresAt: t.Optional(t.String({ format: 'date-time', description: 'When the key stops working (ISO 8601)' })),
		expiresInDays: t.Optional(BoundedInteger(1, 3650, 90, 'must be a whole number of days from 1 to 3650')),
		containerTags: t.Optional(
			t.Array(ContainerTag, {
				minItems: 1,
				maxItems: 100,
				error: 'must be 1 to 100 container tags',
				description: 'Restrict the key to these container tags (it can then read and write nothing else)',
			}),
		),
	},
	{ additionalProperties: false, examples: [REQUEST_EXAMPLES.createKey] },
)

export const KeyView = t.Object({
	id: t.String(),
	name: t.String(),
	prefix: t.String({ description: 'The first characters of the key' }),
	createdAt: DateTime,
	lastUsedAt: t.Nullable(DateTime),
	expiresAt: t.Nullable(DateTime),
	containerTags: t.Nullable(t.Array(t.String(), { description: 'null: unrestricted' })),
	expired: t.Boolean(),
})

export const CreatedKey = t.Composite([
	KeyView,
	t.Object({ key: t.String({ description: 'The key itself; shown only in this answer' }) }),
])

export const KeyList = t.Object({ keys: t.Array(KeyView) })

export const CurrentKey = t.Composite([
	t.Object({ orgId: t.String(), orgName: t.String(), keyId: t.String() }),
	t.Object({ containerTags: t.Nullable(t.Array(t.String())) }),
])

export const RevokedKey = t.Object({ id: t.String(), revoked: t.Literal(true) })
