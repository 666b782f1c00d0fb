import type { SecretBox } from '../settings/secret-box.ts'

/** What the OAuth state carries through the provider: sealed (authenticated encryption), so it cannot be forged. */
export interface AuthState {
	orgId: string
	connectionId: string
	provider: string
	/** The service's base URL the authorization started from: the callback's redirect_uri must be the same. */
	baseUrl: string
	nonce: string
	/** Epoch milliseconds after which the state is refused. */
	expiresAt: number
}

export function sealState(secrets: SecretBox, state: AuthState): string {
	return Buffer.from(secrets.seal(JSON.stringify(state))).toString('base64url')
}

/** The state, or null when it was not sealed by this service (forged, truncated, another key). */
export function openState(secrets: SecretBox, text: string): AuthState | null {
	try {
		const state = JSON.parse(secrets.open(Buffer.from(text, 'base64url').toString('utf8'))) as AuthState
		if (typeof state.orgId !== 'string' || typeof state.connectionId !== 'string') return null
		return state
	} catch {
		return null
	}
}
