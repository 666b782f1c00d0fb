import type { KeyService } from '../auth/key-service.ts'
import type { Principal } from '../auth/verifier.ts'
import type { Services } from '../services.ts'

/** What route modules need: the shared services, plus how a request's key is verified. */
export interface RouteDeps extends Omit<Services, 'connectorDeps' | 'stopConnectors'> {
	/** Verifies a key and applies its rate limit (throws 429). */
	verify: (key: string) => Promise<Principal | null>
	/** MEMORY_PUBLIC_URL: where providers reach this service (OAuth callbacks, webhooks); else each request's origin. */
	publicUrl: string | null
	/** The organization's API keys (create, list, revoke). */
	keys: KeyService
	/** Requests a minute per source address on the webhook routes (0: no limit). */
	webhookRateLimitPerMinute: number
	/** The console is served (MEMORY_CONSOLE_ENABLED): pages of it may be linked to, such as v5's picker. */
	consoleEnabled: boolean
}
