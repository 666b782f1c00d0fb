import { createHash } from 'node:crypto'

/** What an emulator stored when its authorize endpoint issued a code. */
export interface IssuedCode {
	redirectUri: string
	/** The PKCE `code_challenge` authorize was given, if any. */
	challenge: string | null
	/** Its `code_challenge_method`: `S256`, or `plain` (also when absent, as RFC 7636 says). */
	method: string | null
}

/** The provider's own answer to each way a code exchange is refused. */
export interface CodeRefusals {
	/** The code is unknown, used already, or (with `accept`) issued to another client. */
	unknown(): Response
	/** `redirect_uri` differs from the one authorize was given. */
	redirectUri(): Response
	/** `code_verifier` does not match the code's PKCE challenge. */
	verifier(): Response
}

/**
 * Redeems an authorization code as every OAuth provider does (RFC 6749, section 4.1.3; RFC 7636, section 4.6): a
 * code works once (it is gone even when the exchange is refused), with the `redirect_uri` authorize was given, and,
 * when authorize had a PKCE challenge, with a `code_verifier` whose transform matches it. Answers the code, or the
 * provider's refusal.
 */
export function redeemCode<C extends IssuedCode>(
	codes: Map<string, C>,
	form: URLSearchParams,
	refusals: CodeRefusals,
	accept: (code: C) => boolean = () => true,
): C | Response {
	const value = form.get('code') ?? ''
	const code = codes.get(value)
	codes.delete(value)
	if (!code || !accept(code)) return refusals.unknown()
	if (code.redirectUri !== form.get('redirect_uri')) return refusals.redirectUri()
	if (code.challenge) {
		const verifier = form.get('code_verifier') ?? ''
		const transformed = code.method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier
		if (transformed !== code.challenge) return refusals.verifier()
	}
	return code
}
