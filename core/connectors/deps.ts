import type { DocumentService } from '../documents/service.ts'
import type { FileService } from '../files/service.ts'
import type { JobQueue } from '../jobs/queue.ts'
import type { Logger } from '../logger.ts'
import type { AnyConnector } from '../plugins/connector.ts'
import type { Storage } from '../plugins/storage.ts'
import type { SecretBox } from '../settings/secret-box.ts'
import type { SettingsService } from '../settings/service.ts'

/** What the connector runtime works with; built once by the runtime. */
export interface ConnectorDeps {
	storage: Storage
	queue: JobQueue
	documents: DocumentService
	/** File ingestion for items that carry bytes (ExternalDocument.file). */
	files: FileService
	settings: SettingsService
	secrets: SecretBox
	connectors: Map<string, AnyConnector>
	/** The server's environment: server-wide OAuth applications (GITHUB_CLIENT_ID, ...). */
	env: Record<string, string | undefined>
	logger: Logger
	/** The service's public base URL (MEMORY_PUBLIC_URL), else each request's own origin. */
	publicUrl: string | null
	/** How long a webhook-triggered sync waits for more notifications before it starts. */
	webhookDebounceSeconds: number
	/** Aborts when the service stops: running syncs checkpoint and hand over to the next start. */
	stopping?: AbortSignal
}

export const SYNC_QUEUE = 'connector-sync'
export const RENEW_QUEUE = 'connector-renew'

export interface SyncJob {
	connectionId: string
	trigger: 'manual' | 'schedule' | 'webhook'
}

/** A subscription's lifecycle notification, applied by the renewal worker rather than in the webhook's answer. */
export interface LifecycleJob {
	connectionId: string
	subscriptionId: string
	action: 'renew' | 'resubscribe'
	/** Where a subscription made again points its notifications. */
	baseUrl: string | null
}
