import type { ServiceSettings } from './config/settings.ts'
import { completeAuthorization } from './connectors/authorize.ts'
import { startAuthorization } from './connectors/browser-binding.ts'
import { createConnectionService } from './connectors/connection-service.ts'
import type { ConnectorDeps } from './connectors/deps.ts'
import { connectorFor } from './connectors/providers.ts'
import { receiveWebhook, refuseUnroutedWebhook, webhookBodyLimit } from './connectors/webhooks.ts'
import { createProfileService } from './containers/profile.ts'
import { createContainerService } from './containers/service.ts'
import { createDocumentService } from './documents/service.ts'
import { createFeedbackService } from './feedback/service.ts'
import { createFileService } from './files/service.ts'
import { fileUrlSecret } from './files/signed-urls.ts'
import { foreground, foregroundFn } from './jobs/priority.ts'
import type { JobQueue } from './jobs/queue.ts'
import type { Logger } from './logger.ts'
import type { MemoryEngine } from './memory/engine.ts'
import type { SubscriptionRecord } from './plugins/connection-storage.ts'
import type { WebhookRequest } from './plugins/connector.ts'
import type { StartedPlugins } from './plugins/registry.ts'
import { createDocumentSearch } from './search/document-search.ts'
import type { SecretBox } from './settings/secret-box.ts'
import { createSettingsService } from './settings/service.ts'
import type { UsageMeter } from './usage/meter.ts'

/**
 * Every operation of the service, built once per process and shared: the HTTP routes, the connector runtime and
 * (through `Service.services`) the console and the MCP server call the same objects, so each behaves the same
 * whichever way it is reached. Scoped operations take the caller's `Scope` ({ orgId }) first.
 */
export async function createServices(input: {
	plugins: StartedPlugins
	queue: JobQueue
	memory: MemoryEngine
	usage: UsageMeter
	secrets: SecretBox
	settings: ServiceSettings
	logger: Logger
	env: Record<string, string | undefined>
}) {
	const { plugins, queue, memory, usage, secrets, settings, logger } = input
	const { storage, embedder } = plugins
	const files = plugins.files!
	const documents = createDocumentService({ storage, queue, usage, files, logger })
	const settingsKeys = plugins.connectors.flatMap((c) =>
		c.auth.type === 'oauth2' && c.auth.settingsKey ? [c.auth.settingsKey] : [],
	)
	const settingsService = createSettingsService({ storage, secrets, settingsKeys })
	const profileDynamicDays = settings.profileDynamicDays
	const fileService = createFileService({
		storage,
		files,
		documents,
		secret: await fileUrlSecret(settings.fileUrlSecret, storage.meta),
		maxUploadBytes: settings.maxUploadBytes,
		publicUrl: settings.publicUrl,
		logger,
	})
	const connectorsStopping = new AbortController()
	const connectorDeps: ConnectorDeps = {
		storage,
		queue,
		documents,
		files: fileService,
		settings: settingsService,
		secrets,
		connectors: new Map(plugins.connectors.map((connector) => [connector.provider, connector])),
		env: input.env,
		logger,
		publicUrl: settings.publicUrl ?? null,
		webhookDebounceSeconds: settings.webhookDebounceSeconds,
		stopping: connectorsStopping.signal,
	}
	return {
		/** Ingest, read, update and delete documents. */
		documents,
		/** Uploads, originals and their signed URLs. */
		files: fileService,
		documentSearch: foregroundFn(createDocumentSearch({ storage, embedder, reranker: plugins.reranker })),
		/** Organization settings (custom OAuth applications sealed). */
		settings: settingsService,
		usage,
		/** Memory entries: write, list, version, forget (v4). */
		memories: memory.service,
		memorySearch: foregroundFn(memory.search),
		/** Container tags: settings, delete, merge, effective buckets. */
		containers: createContainerService({ storage, documents, queue, logger }),
		profiles: foreground(
			createProfileService({ storage, memorySearch: memory.search, dynamicDays: profileDynamicDays }),
		),
		/** Feedback reports sent through v5, a few a day per organization. */
		feedback: createFeedbackService({ storage }),
		/** Connections to providers: create and authorize, list, delete, resources, manual imports, sync runs. */
		connections: createConnectionService(connectorDeps),
		/** The OAuth redirect back from a provider (no API key: the sealed state names the organization). */
		oauthCallback: (provider: string, query: Record<string, string | undefined>, cookies: string | null) =>
			completeAuthorization(connectorDeps, connectorFor(connectorDeps, provider), query, cookies),
		/** The authorization link: binds the browser that opens it, then sends it to the provider. */
		oauthStart: (provider: string, link: string) =>
			startAuthorization(connectorDeps, connectorFor(connectorDeps, provider).provider, link),
		/** A provider's push notification. */
		webhooks: (provider: string, request: WebhookRequest, routed: SubscriptionRecord[] | null = null) =>
			receiveWebhook(connectorDeps, provider, request, routed),
		/** The largest notification body a provider sends (404 for one without webhooks). */
		webhookBodyLimit: (provider: string) => webhookBodyLimit(connectorDeps, provider),
		/**
		 * Refuses, unread, a notification of a header-routed provider that names no known subscription; the ones it
		 * names otherwise (null when not routed by headers).
		 */
		refuseUnroutedWebhook: (provider: string, headers: Headers) =>
			refuseUnroutedWebhook(connectorDeps, provider, headers),
		/** What the connector runtime's workers use. */
		connectorDeps,
		/** Running connector syncs checkpoint and end (the service is stopping). */
		stopConnectors: () => connectorsStopping.abort(new Error('the service is stopping')),
	}
}

export type Services = Awaited<ReturnType<typeof createServices>>
