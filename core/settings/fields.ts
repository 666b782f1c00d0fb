/**
 * The OAuth providers whose applications an organization can replace with its own (the published API's
 * `<provider>ClientId`, `<provider>ClientSecret` and `<provider>CustomKeyEnabled` settings).
 */
export const CUSTOM_KEY_PROVIDERS = ['googleDrive', 'notion', 'onedrive', 'github'] as const
export type CustomKeyProvider = (typeof CUSTOM_KEY_PROVIDERS)[number]

export const PLAIN_FIELDS = [
	'excludeItems',
	'includeItems',
	'filterPrompt',
	'shouldLLMFilter',
	'chunkSize',
	'profileBuckets',
	'workspacePrompt',
] as const

/**
 * Options of an organization's own application, stored beside its credentials and given to its connections
 * (`googleDrivePubsubTopic`: the Pub/Sub topic Gmail push publishes to, in that application's Cloud project).
 */
export const APP_OPTIONS: Partial<Record<CustomKeyProvider, string[]>> = { googleDrive: ['PubsubTopic'] }
const appOptionFields = Object.entries(APP_OPTIONS).flatMap(([provider, options]) =>
	(options ?? []).map((option) => `${provider}${option}`),
)

export const clientIdField = (provider: CustomKeyProvider) => `${provider}ClientId` as const
export const clientSecretField = (provider: CustomKeyProvider) => `${provider}ClientSecret` as const
export const customKeyEnabledField = (provider: CustomKeyProvider) => `${provider}CustomKeyEnabled` as const

/** Every settings key a client may read or write. */
export const SETTINGS_FIELDS: string[] = [
	...PLAIN_FIELDS,
	...CUSTOM_KEY_PROVIDERS.flatMap((p) => [clientIdField(p), clientSecretField(p), customKeyEnabledField(p)]),
	...appOptionFields,
]

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
