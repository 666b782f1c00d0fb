import { describe, expect, it } from 'bun:test'
import type { Principal } from '../../core/auth/verifier.ts'
import { ServiceError } from '../../core/errors.ts'
import { callerOf, mayUse, resolveTag } from '../../mcp/caller.ts'

const principal: Principal = { orgId: 'org_1', orgName: 'acme', keyId: 'key_1', containerTags: null }
const restricted: Principal = { ...principal, containerTags: ['team_a', 'team_b'] }
const status = (run: () => unknown) => {
	try {
		run()
	} catch (error) {
		return error instanceof ServiceError ? error.status : -1
	}
	return 0
}

describe('MCP caller', () => {
	it('defaults to the REST default tag, or to the x-sm-project header', () => {
		expect(callerOf(principal, new Headers()).defaultTag).toBe('sm_project_default')
		expect(callerOf(principal, new Headers({ 'x-sm-project': 'notes' })).defaultTag).toBe('notes')
		expect(resolveTag(callerOf(principal, new Headers()), 'other')).toBe('other')
	})

	it('holds a key restricted to some container tags to them', () => {
		const caller = callerOf(restricted, new Headers())
		expect(caller.defaultTag).toBe('team_a')
		expect(resolveTag(caller, 'team_b')).toBe('team_b')
		expect(status(() => resolveTag(caller, 'team_c'))).toBe(403)
		expect(status(() => callerOf(restricted, new Headers({ 'x-sm-project': 'team_c' })))).toBe(403)
		expect(mayUse(caller, 'team_a')).toBe(true)
		expect(mayUse(caller, 'team_c')).toBe(false)
		expect(mayUse(callerOf(principal, new Headers()), 'team_c')).toBe(true)
	})

	it('refuses a tag the REST API would refuse, with 400', () => {
		const caller = callerOf(principal, new Headers())
		expect(status(() => resolveTag(caller, 'has spaces'))).toBe(400)
		expect(status(() => resolveTag(caller, 'x'.repeat(101)))).toBe(400)
	})
})
