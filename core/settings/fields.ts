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

/** Every settings key a client may read or write, given the registered connectors' settings keys. */
export function settingsFields(settingsKeys: readonly string[]): string[] {
	return [
		...PLAIN_FIELDS,
		...settingsKeys.flatMap((key) => [clientIdField(key), clientSecretField(key), customKeyEnabledField(key)]),
	]
}

/** Secrets are shown only as their last four characters. */
export function maskSecret(secret: string): string {
	return `****${secret.slice(-4)}`
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
