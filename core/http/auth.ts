import { Elysia } from 'elysia'
import type { Principal } from '../auth/verifier.ts'
import { HttpError } from '../errors.ts'

const unauthorized = (details: string) => new HttpError(401, 'Unauthorized', details)

/**
 * Resolves `Authorization: Bearer <key>` to the key's organization before the body is validated, so an anonymous
 * request learns nothing about the route's input rules. Every route registered after this plugin is protected.
 */
export function bearerAuth(verify: (key: string) => Promise<Principal | null>) {
	return new Elysia().derive({ as: 'scoped' }, async ({ headers }) => {
		const header = headers.authorization
		if (!header) throw unauthorized('Missing Authorization header (expected "Bearer <api key>")')
		const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
		if (!match) throw unauthorized('Authorization header must be "Bearer <api key>"')
		const principal = await verify(match[1]!)
		if (!principal) throw unauthorized('Invalid, expired or revoked API key')
		return { principal, scope: { orgId: principal.orgId } }
	})
}
