import { describe, expect, it } from 'bun:test'
import { connectorsFromEnv } from '../../server/connectors-from-env.ts'

describe('built-in gmail connector', () => {
	it('takes Google endpoints and push settings from the environment, and refuses a malformed size', async () => {
		const [connector] = await connectorsFromEnv({
			MEMORY_CONNECTORS: 'gmail',
			GOOGLE_ACCOUNTS_URL: 'https://accounts.example',
			GOOGLE_OAUTH_URL: 'https://oauth.example',
		})
		expect(connector!.provider).toBe('gmail')
		expect(connector!.schedule).toEqual({ everyHours: 4 })
		expect(connector!.auth).toMatchObject({
			type: 'oauth2',
			authorizeUrl: 'https://accounts.example/o/oauth2/v2/auth',
			tokenUrl: 'https://oauth.example/token',
			pkce: true,
			settingsKey: 'googleDrive',
			env: { clientId: 'GOOGLE_CLIENT_ID', clientSecret: 'GOOGLE_CLIENT_SECRET' },
			scopes: expect.arrayContaining(['https://www.googleapis.com/auth/gmail.readonly']),
		})
		// Without a push audience every push is refused, whatever its token.
		const push = { headers: new Headers({ authorization: 'Bearer x.y.z' }), body: '{}', query: new URLSearchParams() }
		expect(await connector!.webhook!.authenticate!(push)).toBe(false)
		await expect(connectorsFromEnv({ MEMORY_CONNECTORS: 'gmail', GMAIL_MAX_MESSAGE_BYTES: 'big' })).rejects.toThrow(
			'GMAIL_MAX_MESSAGE_BYTES must be a whole number of bytes',
		)
	})
})
