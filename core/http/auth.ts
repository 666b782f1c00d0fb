import { Elysia } from 'elysia'
import type { Principal } from '../auth/verifier.ts'
import { ServiceError } from '../errors.ts'
import { assertRequestStorable } from './guards/text-rule.ts'

const unauthorized = (details: string) => new ServiceError(401, 'Unauthorized', details)

/** Each request's key is verified once (verify also spends its rate limit), whichever stage asks first. */
const verified = new WeakMap<Request, Promise<Principal>>()

async function authenticate(header: string | null, verify: (key: string) => Promise<Principal | null>) {
	if (!header) throw unauthorized('Missing Authorization header (expected "Bearer <api key>")')
	const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
	if (!match) throw unauthorized('Authorization header must be "Bearer <api key>"')
	const principal = await verify(match[1]!)
	if (!principal) throw unauthorized('Invalid, expired or revoked API key')
	return principal
}

function principalOf(request: Request, verify: (key: string) => Promise<Principal | null>): Promise<Principal> {
	let principal = verified.get(request)
	if (!principal) {
		principal = authenticate(request.headers.get('authorization'), verify)
		verified.set(request, principal)
	}
	return principal
}

/**
 * A parse hook that checks the key and parses nothing, for a route to list before its parser (`parse: [hook,
 * 'formdata']`) so a large body is not read for an anonymous request. (A plugin-wide parse hook would hide the routes'
 * request bodies from the OpenAPI document.)
 */
export function keyBeforeParsing(verify: (key: string) => Promise<Principal | null>) {
	return async ({ request }: { request: Request }) => {
		await principalOf(request, verify)
	}
}

/**
 * Resolves `Authorization: Bearer <key>` to the key's organization before the body is read or validated, so an
 * anonymous request learns nothing about the route's input rules and costs no parsing. Every route registered after
 * this plugin is protected. A scoped derive rather than a macro: a macro's `resolve` runs after validation.
 */
export function bearerAuth(verify: (key: string) => Promise<Principal | null>) {
	return (
		new Elysia({ name: 'bearer-auth' })
			// Routes without a body have no parse stage: here their key is checked. Then the one rule for text.
			.derive({ as: 'scoped' }, async ({ request, params, query, body, set }) => {
				const principal = await principalOf(request, verify)
				// An answer for one key's organization is never kept by a shared or browser cache.
				set.headers['cache-control'] = 'no-store'
				assertRequestStorable({ params, query, body })
				return { principal, scope: { orgId: principal.orgId } }
			})
	)
}
