import { StartupError } from '../errors.ts'
import { type ConnectorPlugin, PROVIDER_ID_PATTERN } from './connector.ts'

const AUTH_TYPES = ['oauth2', 'credentials', 'none']

function isUrl(value: unknown): boolean {
	if (typeof value !== 'string') return false
	try {
		new URL(value)
		return true
	} catch {
		return false
	}
}

/**
 * Checks a connector's declaration before anything starts. `seen` holds the ids met so far (`provider:<id>` is added
 * here), so a second connector for the same provider stops the start naming both.
 */
export function validateConnector(connector: ConnectorPlugin, label: string, seen: Set<string>): void {
	const fail = (problem: string) => {
		throw new StartupError(`${label}: ${problem}`)
	}
	const provider = connector.provider
	if (typeof provider !== 'string' || !PROVIDER_ID_PATTERN.test(provider)) {
		fail(`provider must be a lower-case id such as "github" (got ${JSON.stringify(provider)})`)
	}
	const key = `provider:${provider}`
	if (seen.has(key)) fail(`provider "${provider}" is already served by another connector; remove one of them`)
	seen.add(key)
	if (typeof connector.displayName !== 'string' || connector.displayName === '') fail('displayName is missing')
	if (typeof connector.sync !== 'function') fail('sync(ctx, cursor) is missing')
	const auth = connector.auth
	if (!auth || !AUTH_TYPES.includes(auth.type)) fail(`auth.type must be one of ${AUTH_TYPES.join(', ')}`)
	if (auth.type === 'oauth2') {
		if (!isUrl(auth.authorizeUrl)) fail('auth.authorizeUrl must be a URL')
		if (!isUrl(auth.tokenUrl)) fail('auth.tokenUrl must be a URL')
		if (auth.revokeUrl !== undefined && !isUrl(auth.revokeUrl)) fail('auth.revokeUrl must be a URL')
		if (!Array.isArray(auth.scopes)) fail('auth.scopes must be a list')
		if (auth.settingsKey !== undefined && !/^[a-z][a-zA-Z0-9]{1,40}$/.test(auth.settingsKey)) {
			fail('auth.settingsKey must be a plain identifier (letters and digits, starting lower case), e.g. googleDrive')
		}
		if (!auth.env?.clientId || !auth.env?.clientSecret) {
			fail('auth.env must name the variables of the server-wide client id and secret')
		}
	}
	if (auth.type === 'credentials' && (!Array.isArray(auth.fields) || auth.fields.length === 0)) {
		fail('auth.fields must list at least one credential')
	}
	const every = connector.schedule?.everyHours
	if (connector.schedule === undefined || (every !== null && !(typeof every === 'number' && every > 0))) {
		fail('schedule.everyHours must be a positive number of hours, or null for no schedule')
	}
	if (connector.resources && typeof connector.resources.list !== 'function') fail('resources.list is missing')
	if (connector.resources && typeof connector.resources.configure !== 'function') {
		fail('resources.configure is missing')
	}
	if (connector.webhook) {
		const { verify, authenticate, verifyApp, routeKeys, maxRouteKeys, maxBodyBytes } = connector.webhook
		if (typeof verify !== 'function' && typeof authenticate !== 'function' && typeof verifyApp !== 'function') {
			fail('webhook.verify, webhook.authenticate or webhook.verifyApp is missing')
		}
		if (typeof routeKeys !== 'function') fail('webhook.routeKeys is missing')
		for (const [name, value] of Object.entries({ maxRouteKeys, maxBodyBytes })) {
			if (value !== undefined && !(Number.isInteger(value) && value > 0))
				fail(`webhook.${name} must be a positive integer`)
		}
	}
}
