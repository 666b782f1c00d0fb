import { gmail } from '../connectors/gmail/index.ts'
import type { GmailEmulator } from './emulators/google-gmail.ts'
import { type Driver, startTestService } from './service.ts'

export const GMAIL_TOPIC = 'projects/demo-project/topics/gmail'
export const GMAIL_PUSH_AUDIENCE = 'https://memory.example.com/v3/connections/webhooks/gmail'

/** A service with the Gmail connector on the emulator; pushes are taken only when signed by `pushServiceAccount`. */
export function startGmailService(driver: Driver, emulator: GmailEmulator, pushServiceAccount: string | undefined) {
	return startTestService(driver, {
		env: {
			GOOGLE_CLIENT_ID: emulator.google.clientId,
			GOOGLE_CLIENT_SECRET: emulator.google.clientSecret,
			MEMORY_WEBHOOK_DEBOUNCE_SECONDS: '0',
		},
		plugins: [
			gmail({
				accountsUrl: emulator.url,
				oauthUrl: emulator.url,
				apiUrl: emulator.url,
				pubsubTopic: GMAIL_TOPIC,
				pushAudience: GMAIL_PUSH_AUDIENCE,
				pushServiceAccount,
				pushJwksUrl: emulator.jwksUrl,
			}),
		],
		extractor: null,
	})
}
