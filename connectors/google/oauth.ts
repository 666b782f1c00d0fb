import type { OAuth2Auth } from '../../core/index.ts'
import { type GoogleEndpointOptions, googleEndpoints } from './endpoints.ts'

export interface GoogleOAuthOptions extends GoogleEndpointOptions {
	/** The API scopes; the email scope that names the account is always added. */
	scopes: string[]
	/** Organization settings prefix of a custom application; Drive and Gmail share Google's (`googleDrive`). */
	settingsKey?: string
}

const EMAIL_SCOPE = 'https://www.googleapis.com/auth/userinfo.email'

/**
 * Google's OAuth 2.0 declaration: offline access with consent forced (Google issues a refresh token only on a
 * consented grant), PKCE, revocation at Google's revoke endpoint, and the connected account's email. Server-wide
 * app from GOOGLE_CLIENT_ID / GOOGLE_CLIENT_SECRET, an organization's own from its `googleDrive*` settings.
 */
export function googleOAuth(options: GoogleOAuthOptions): OAuth2Auth {
	const endpoints = googleEndpoints(options)
	return {
		type: 'oauth2',
		authorizeUrl: endpoints.authorizeUrl,
		tokenUrl: endpoints.tokenUrl,
		revokeUrl: endpoints.revokeUrl,
		scopes: [...new Set([...options.scopes, EMAIL_SCOPE])],
		// Google's granular consent lets the user untick the API's scope and keep only the sign-in one.
		requiredScopes: options.scopes,
		// Drive and Gmail share the application: revoking one connection's token ends the account's whole grant.
		grantGroup: 'google',
		pkce: true,
		authorizeParams: { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' },
		env: { clientId: 'GOOGLE_CLIENT_ID', clientSecret: 'GOOGLE_CLIENT_SECRET' },
		settingsKey: options.settingsKey ?? 'googleDrive',
		async identity(tokens) {
			const response = await fetch(endpoints.userinfoUrl, {
				headers: { authorization: `Bearer ${tokens.accessToken}` },
			})
			if (!response.ok) throw new Error(`Google's userinfo answered ${response.status}`)
			const body = (await response.json()) as { email?: unknown; id?: unknown }
			return {
				email: typeof body.email === 'string' ? body.email : null,
				accountId: typeof body.id === 'string' ? body.id : null,
			}
		},
	}
}
