/**
 * An organization can replace the server's OAuth application of every registered connector that declares
 * `auth.settingsKey` with its own: `<settingsKey>ClientId`, `<settingsKey>ClientSecret`, `<settingsKey>CustomKeyEnabled`
 * (the published API names four: googleDrive, notion, onedrive, github).
 */

export const PLAIN_FIELDS = [
	'excludeItems',
	'includeItems',
	'filterPrompt',
	'shouldLLMFilter',
	'chunkSize',
	'profileBuckets',
	'workspacePrompt',
] as const

export const clientIdField = (settingsKey: string) => `${settingsKey}ClientId`
export const clientSecretField = (settingsKey: string) => `${settingsKey}ClientSecret`
export const customKeyEnabledField = (settingsKey: string) => `${settingsKey}CustomKeyEnabled`

/**
 * Options of an organization's own application, by settings key, stored beside its credentials and given to its
 * connections: `googleDrivePubsubTopic` (the Pub/Sub topic Gmail push publishes to, in that application's project),
 * `googleDrivePushServiceAccount` (the service account its push subscription signs with),
 * `notionWebhookVerificationToken` (the verification token of its integration's webhook subscription).
 */
export const APP_OPTIONS: Record<string, string[]> = {
	googleDrive: ['PubsubTopic', 'PushServiceAccount'],
	notion: ['WebhookVerificationToken'],
}

/** Application options that are secrets: sealed when stored, masked when shown, like client secrets. */
export const SECRET_APP_OPTIONS = new Set(['notionWebhookVerificationToken'])

const appOptionFields = (settingsKey: string) => (APP_OPTIONS[settingsKey] ?? []).map((o) => `${settingsKey}${o}`)

/** Every settings key a client may read or write, given the registered connectors' settings keys. */
export function settingsFields(settingsKeys: readonly string[]): string[] {
	return [
		...PLAIN_FIELDS,
		...settingsKeys.flatMap((key) => [
			clientIdField(key),
			clientSecretField(key),
			customKeyEnabledField(key),
			...appOptionFields(key),
		]),
	]
}

/** Secrets are shown only as their last four characters. */
export function maskSecret(secret: string): string {
	// A short secret shows nothing of itself: its last four would be most or all of it.
	return secret.length >= 12 ? `****${secret.slice(-4)}` : '****'
}

export function orgSlug(name: string): string {
	return (
		name
			.toLowerCase()
			.normalize('NFKD')
			.replace(/[^a-z0-9]+/g, '-')
			.replace(/^-+|-+$/g, '') || 'org'
	)
}
