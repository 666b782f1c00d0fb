import { t } from 'elysia'
import { clientIdField, clientSecretField, customKeyEnabledField } from '../../settings/fields.ts'
import { BoundedInteger } from './common.ts'
import { REQUEST_EXAMPLES } from './examples.ts'

export const ProfileBucket = t.Object(
	{
		key: t.String({
			minLength: 1,
			maxLength: 64,
			pattern: '^[a-z0-9][a-z0-9_-]*$',
			error: 'must be 1 to 64 characters of lower-case letters, digits, "_" or "-", starting with a letter or digit',
		}),
		description: t.Optional(t.String({ maxLength: 2000, error: 'must be at most 2000 characters' })),
	},
	{ additionalProperties: false },
)

export const ProfileBuckets = t.Array(ProfileBucket, { maxItems: 50, error: 'must be at most 50 buckets' })

/** Printable characters without spaces: what OAuth client ids and secrets look like. */
const Credential = (max: number) =>
	t.Nullable(
		t.String({
			minLength: 1,
			maxLength: max,
			pattern: '^[\\x21-\\x7E]+$',
			error: `must be 1 to ${max} printable characters without spaces`,
		}),
	)

const credentialFields = (settingsKeys: readonly string[]) =>
	Object.fromEntries(
		settingsKeys.flatMap((key) => [
			[clientIdField(key), t.Optional(Credential(512))],
			[clientSecretField(key), t.Optional(Credential(1024))],
			[customKeyEnabledField(key), t.Optional(t.Nullable(t.Boolean()))],
		]),
	)

/**
 * A Pub/Sub topic's full name: a Cloud project id (6 to 30 lower-case letters, digits or hyphens) and a topic name
 * (3 to 255 characters, starting with a letter), https://cloud.google.com/pubsub/docs/pubsub-basics#resource_names.
 */
const PubsubTopic = t.Nullable(
	t.String({
		maxLength: 300,
		pattern: '^projects/[a-z][a-z0-9-]{4,28}[a-z0-9]/topics/[A-Za-z][A-Za-z0-9._~+%-]{2,254}$',
		error: 'must be a Pub/Sub topic, projects/<project id>/topics/<topic>, in the Cloud project of the application',
	}),
)

/** A Google service account's email (https://cloud.google.com/iam/docs/service-account-overview). */
const ServiceAccount = t.Nullable(
	t.String({
		maxLength: 254,
		pattern: '^[a-z0-9][a-z0-9._-]*@[a-z0-9][a-z0-9.-]*\\.gserviceaccount\\.com$',
		error: 'must be a service account email, name@project.iam.gserviceaccount.com',
	}),
)

/** The PATCH body: the plain settings and the application fields of the registered connectors' settings keys. */
export const settingsPatchBody = (settingsKeys: readonly string[]) =>
	t.Object(
		{
			excludeItems: t.Optional(t.Unknown()),
			includeItems: t.Optional(t.Unknown()),
			filterPrompt: t.Optional(t.Nullable(t.String({ maxLength: 4000 }))),
			shouldLLMFilter: t.Optional(t.Nullable(t.Boolean())),
			chunkSize: t.Optional(
				t.Nullable(BoundedInteger(100, 10_000, 800), { error: 'must be an integer from 100 to 10000, or null' }),
			),
			profileBuckets: t.Optional(ProfileBuckets),
			workspacePrompt: t.Optional(t.Nullable(t.String({ maxLength: 1500, error: 'must be at most 1500 characters' }))),
			...credentialFields(settingsKeys),
			...(settingsKeys.includes('googleDrive')
				? {
						googleDrivePubsubTopic: t.Optional(PubsubTopic),
						googleDrivePushServiceAccount: t.Optional(ServiceAccount),
					}
				: {}),
			...(settingsKeys.includes('notion') ? { notionWebhookVerificationToken: t.Optional(Credential(256)) } : {}),
		},
		{
			additionalProperties: false,
			description:
				'Either `workspacePrompt` alone, or any other settings. Client secrets and webhook verification tokens are stored encrypted.',
			examples: [REQUEST_EXAMPLES.settings],
		},
	)

export const SettingsView = t.Record(t.String(), t.Unknown(), {
	description: 'Every setting (null when unset); client secrets masked to their last four characters',
})

export const SettingsPatchResponse = t.Object({ orgId: t.String(), orgSlug: t.String(), updated: SettingsView })

export const ResetBody = t.Object(
	{
		confirmation: t.String({
			minLength: 1,
			error: "must be the organization's slug (see PATCH /v3/settings: orgSlug)",
			description: "The organization's slug, to confirm deleting all of its content",
		}),
	},
	{ additionalProperties: false, examples: [REQUEST_EXAMPLES.reset] },
)

export const ResetResponse = t.Object({
	success: t.Literal(true),
	deletedConnections: t.Number(),
	deletedDocumentBatches: t.Number(),
	deletedDocumentsApprox: t.Number(),
	deletedMemoryRows: t.Number(),
	deletedExtraSpaces: t.Number(),
	clearedDefaultSpaceContext: t.Boolean(),
	clearedBrainMemoryRegistry: t.Boolean(),
	settingsReset: t.Boolean(),
})
