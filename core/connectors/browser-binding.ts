import { createHash, timingSafeEqual } from 'node:crypto'
import { badRequest } from '../errors.ts'
import type { ConnectorDeps } from './deps.ts'
import { type AuthState, openState } from './state.ts'

/** How long after opening the link the user has to finish at the provider. */
export const BINDING_SECONDS = 15 * 60

/**
 * An authorization is bound to the browser that opened its link: the link is served by this service, which sets an
 * HttpOnly, SameSite=Lax cookie holding a hash of the state's secret nonce before sending the browser on to the
 * provider; the callback is refused without it. Someone else's browser handed the provider's URL (or the callback)
 * has no such cookie and completes nothing.
 */
const cookieName = (connectionId: string) => `sm_oauth_${connectionId}`
const bindingOf = (nonce: string) => createHash('sha256').update(`oauth-browser:${nonce}`).digest('base64url')

const callbackPath = (provider: string) => `/v3/connections/auth/callback/${provider}`

/** The link handed out at create: it opens `start`, which binds the browser and redirects to `providerUrl`. */
export function startLink(deps: ConnectorDeps, baseUrl: string, provider: string, providerUrl: string): string {
	const sealed = Buffer.from(deps.secrets.seal(providerUrl)).toString('base64url')
	return `${baseUrl}/v3/connections/auth/start/${provider}?link=${sealed}`
}

function stateOf(deps: ConnectorDeps, provider: string, providerUrl: string): AuthState | null {
	try {
		const state = new URL(providerUrl).searchParams.get('state')
		const opened = state ? openState(deps.secrets, state) : null
		return opened?.provider === provider ? opened : null
	} catch {
		return null
	}
}

/** Opens a start link: where to send the browser, and the cookie that binds it to this authorization. */
export function startAuthorization(deps: ConnectorDeps, provider: string, link: string) {
	let providerUrl: string
	try {
		providerUrl = deps.secrets.open(Buffer.from(link, 'base64url').toString('utf8'))
	} catch {
		throw badRequest('the authorization link is invalid')
	}
	const state = stateOf(deps, provider, providerUrl)
	if (!state) throw badRequest('the authorization link is invalid')
	if (state.expiresAt < Date.now()) throw badRequest('the authorization link expired; create the connection again')
	const secure = state.baseUrl.startsWith('https:') ? '; Secure' : ''
	const cookie = `${cookieName(state.connectionId)}=${bindingOf(state.nonce)}; Path=${callbackPath(provider)}; Max-Age=${BINDING_SECONDS}; HttpOnly; SameSite=Lax${secure}`
	return { location: providerUrl, cookie }
}

/** Reads one cookie from a Cookie header. */
function cookieValue(header: string | null, name: string): string | null {
	for (const part of (header ?? '').split(';')) {
		const at = part.indexOf('=')
		if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim()
	}
	return null
}

/** Whether the browser that brought the callback (its Cookie header) is the one that opened the link. */
export function sameBrowser(state: AuthState, cookieHeader: string | null): boolean {
	const given = Buffer.from(cookieValue(cookieHeader, cookieName(state.connectionId)) ?? '')
	const expected = Buffer.from(bindingOf(state.nonce))
	return given.length === expected.length && timingSafeEqual(given, expected)
}

/** The Set-Cookie that removes the binding once the callback is handled. */
export const clearBinding = (provider: string, connectionId: string) =>
	`${cookieName(connectionId)}=; Path=${callbackPath(provider)}; Max-Age=0; HttpOnly; SameSite=Lax`
