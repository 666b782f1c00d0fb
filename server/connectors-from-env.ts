import type { AnyConnector } from '../core/index.ts'

type Env = Record<string, string | undefined>

/**
 * A number from the environment: undefined when unset or empty, else at least `min` (and whole when `whole` names
 * what it counts); anything else stops the start with a message naming the variable.
 */
function numberFrom(env: Env, name: string, { min = 0, whole }: { min?: number; whole?: string } = {}) {
	const raw = env[name]
	if (!raw) return undefined
	const value = Number(raw)
	if (!(whole ? Number.isInteger(value) : Number.isFinite(value)) || value < min) {
		throw new Error(whole ? `${name} must be a whole number of ${whole}` : `${name} must be a number of ${min} or more`)
	}
	return value
}

/**
 * The built-in connectors, each loaded only when enabled: an unused provider's module and SDK are never imported.
 * Every provider's endpoints come from the environment, so an enterprise server (or a test emulator) replaces them.
 */
export const BUILT_IN_CONNECTORS: Record<string, (env: Env) => Promise<AnyConnector>> = {
	github: async (env) => {
		const { github } = await import('../connectors/github/index.ts')
		return github({ apiUrl: env.GITHUB_API_URL, webUrl: env.GITHUB_WEB_URL })
	},
	gmail: async (env) => {
		const [{ gmail }, { googleEndpointsFromEnv }] = await Promise.all([
			import('../connectors/gmail/index.ts'),
			import('../connectors/google/index.ts'),
		])
		return gmail({
			...googleEndpointsFromEnv(env),
			pubsubTopic: env.GMAIL_PUBSUB_TOPIC,
			pushAudience: env.GMAIL_PUSH_AUDIENCE,
			pushServiceAccount: env.GMAIL_PUSH_SERVICE_ACCOUNT,
			pushJwksUrl: env.GMAIL_PUSH_JWKS_URL,
			maxMessageBytes: numberFrom(env, 'GMAIL_MAX_MESSAGE_BYTES', { min: 1, whole: 'bytes' }),
		})
	},
	'google-drive': async (env) => {
		const [{ googleDrive }, { googleEndpointsFromEnv }] = await Promise.all([
			import('../connectors/google-drive/index.ts'),
			import('../connectors/google/index.ts'),
		])
		return googleDrive(googleEndpointsFromEnv(env))
	},
	granola: async (env) => {
		const { granola } = await import('../connectors/granola/index.ts')
		// Unset: the connector's default (4 hours); 0: on demand only.
		const hours = numberFrom(env, 'GRANOLA_SYNC_EVERY_HOURS')
		return granola({ apiUrl: env.GRANOLA_API_URL, syncEveryHours: hours === undefined ? undefined : hours || null })
	},
	notion: async (env) => {
		const { notion } = await import('../connectors/notion/index.ts')
		return notion({
			apiUrl: env.NOTION_API_URL,
			requestsPerSecond: numberFrom(env, 'NOTION_REQUESTS_PER_SECOND'),
			webhookVerificationTokens: (env.NOTION_WEBHOOK_VERIFICATION_TOKEN ?? '').split(',').filter(Boolean),
		})
	},
	onedrive: async (env) => {
		const { onedrive } = await import('../connectors/onedrive/index.ts')
		return onedrive({
			graphUrl: env.MICROSOFT_GRAPH_URL,
			loginUrl: env.MICROSOFT_LOGIN_URL,
			tenant: env.MICROSOFT_TENANT,
			...(env.MICROSOFT_ONEDRIVE_NOTIFICATIONS === 'false' ? { changeNotifications: false } : {}),
			maxFileBytes: numberFrom(env, 'MEMORY_MAX_UPLOAD_BYTES', { min: 1, whole: 'bytes' }),
		})
	},
	'web-crawler': async (env) => {
		const { webCrawler } = await import('../connectors/web-crawler/index.ts')
		return webCrawler({
			urlAllowlist: (env.MEMORY_URL_ALLOWLIST ?? '').split(/[\s,]+/).filter(Boolean),
			delayMs: numberFrom(env, 'WEB_CRAWLER_DELAY_MS'),
			recrawlEveryHours: numberFrom(env, 'WEB_CRAWLER_RECRAWL_HOURS'),
			minImportIntervalMinutes: numberFrom(env, 'WEB_CRAWLER_MIN_IMPORT_MINUTES'),
			userAgent: env.WEB_CRAWLER_USER_AGENT || undefined,
		})
	},
}

/**
 * MEMORY_CONNECTORS: a comma-separated list of provider ids (`github,notion`), `none`, or unset for every built-in
 * connector. A connector whose server-wide OAuth application is not configured still works with organizations'
 * own applications (settings).
 */
export async function connectorsFromEnv(env: Env): Promise<AnyConnector[]> {
	const wanted = env.MEMORY_CONNECTORS?.trim()
	if (wanted === 'none') return []
	const names = wanted ? wanted.split(',').map((name) => name.trim()) : Object.keys(BUILT_IN_CONNECTORS)
	const unknown = names.filter((name) => !(name in BUILT_IN_CONNECTORS))
	if (unknown.length > 0) {
		throw new Error(
			`MEMORY_CONNECTORS names unknown connectors: ${unknown.join(', ')} (built in: ${Object.keys(BUILT_IN_CONNECTORS).join(', ')})`,
		)
	}
	return Promise.all(names.map((name) => BUILT_IN_CONNECTORS[name]!(env)))
}
