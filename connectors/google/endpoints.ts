/** Google's OAuth endpoints; each is configuration, so a test emulator (or a proxy) can stand in for Google. */
export interface GoogleEndpoints {
	authorizeUrl: string
	tokenUrl: string
	revokeUrl: string
	/** The `oauth2 v2` userinfo call that names the connected account. */
	userinfoUrl: string
}

export interface GoogleEndpointOptions {
	/** Origin of the consent page (`https://accounts.google.com`). */
	accountsUrl?: string
	/** Origin of the token and revocation endpoints (`https://oauth2.googleapis.com`). */
	oauthUrl?: string
	/**
	 * Origin the Google APIs are called at; unset: each API's own (`https://www.googleapis.com/` for Drive and
	 * userinfo). googleapis keeps only the origin of a root URL, so whatever stands in must serve Google's paths.
	 */
	apiUrl?: string
}

const trimSlash = (url: string) => url.replace(/\/+$/, '')

export function googleEndpoints(options: GoogleEndpointOptions = {}): GoogleEndpoints {
	const accounts = trimSlash(options.accountsUrl || 'https://accounts.google.com')
	const oauth = trimSlash(options.oauthUrl || 'https://oauth2.googleapis.com')
	const api = trimSlash(options.apiUrl || 'https://www.googleapis.com')
	return {
		authorizeUrl: `${accounts}/o/oauth2/v2/auth`,
		tokenUrl: `${oauth}/token`,
		revokeUrl: `${oauth}/revoke`,
		userinfoUrl: `${api}/oauth2/v2/userinfo`,
	}
}

/** The `rootUrl` option of a googleapis client: the configured origin with a trailing slash, or the API's default. */
export const rootUrlOption = (apiUrl: string | undefined) => (apiUrl ? { rootUrl: `${trimSlash(apiUrl)}/` } : {})

/** Reads the endpoints from the environment: GOOGLE_ACCOUNTS_URL, GOOGLE_OAUTH_URL and GOOGLE_API_URL. */
export function googleEndpointsFromEnv(env: Record<string, string | undefined>): GoogleEndpointOptions {
	return {
		accountsUrl: env.GOOGLE_ACCOUNTS_URL || undefined,
		oauthUrl: env.GOOGLE_OAUTH_URL || undefined,
		apiUrl: env.GOOGLE_API_URL || undefined,
	}
}
