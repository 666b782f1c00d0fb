/**
 * The one public surface of the memory service. Plugins and connectors (ours and third parties') import only from here.
 */

export type { MemoryConfig } from './config/define.ts'
export { defineConfig } from './config/define.ts'
export { defaultFilesDir, embeddedDatabaseDir } from './config/paths.ts'
export type { ServiceSettings } from './config/settings.ts'
export {
	ForbiddenError,
	InsufficientScopeError,
	ItemError,
	ProviderHttpError,
	RateLimitedError,
	statusOf,
} from './connectors/errors.ts'
export type { ProviderAnswer, ProviderPolicy } from './connectors/provider-http.ts'
export { providerFetch, requestedWaitMs, withProviderRetry } from './connectors/provider-http.ts'
export { contentHash } from './documents/content-hash.ts'
export type * from './domain/filter.ts'
export { FILTER_TYPES, isFilterGroup, MAX_FILTER_DEPTH, NUMERIC_OPERATORS } from './domain/filter.ts'
export type * from './domain/memory.ts'
export { MEMORY_RELATIONS } from './domain/memory.ts'
export type * from './domain/types.ts'
export { DOCUMENT_STATUSES, DOCUMENT_TYPES, PIPELINE_STAGES } from './domain/types.ts'
export { PermanentStageError, ServiceError, StageError, StartupError } from './errors.ts'
export { newId } from './ids.ts'
export type { IsolationLimits } from './jobs/isolated-task.ts'
export { runIsolated } from './jobs/isolated-task.ts'
export { BackgroundLane, inBackground, inForeground } from './jobs/priority.ts'
export { yieldToEventLoop } from './jobs/yield.ts'
export type { Logger } from './logger.ts'
export { createLogger } from './logger.ts'
export type { Fetched, FetchPolicy } from './pipeline/extract/fetch-url.ts'
export { FetchError, fetchUrl } from './pipeline/extract/fetch-url.ts'
export type { HtmlText } from './pipeline/extract/html.ts'
export { htmlToText } from './pipeline/extract/html.ts'
export type { FileKind } from './pipeline/extract/kinds.ts'
export { kindOfExtension, kindOfMime } from './pipeline/extract/kinds.ts'
export { SUMMARY_MAX } from './pipeline/extract/summary.ts'
export type { AllowList, Resolver } from './pipeline/extract/url-guard.ts'
export { parseAllowList } from './pipeline/extract/url-guard.ts'
export type { Transcript, TranscriptTurn } from './pipeline/transcript.ts'
export { parseSpeakerLine, parseTranscript } from './pipeline/transcript.ts'
export type * from './plugins/connection-storage.ts'
export type * from './plugins/connector.ts'
export {
	ConnectorAuthError,
	DEFAULT_WEBHOOK_BODY_BYTES,
	DEFAULT_WEBHOOK_ROUTE_KEYS,
	defineConnector,
	PROVIDER_ID_PATTERN,
} from './plugins/connector.ts'
export type * from './plugins/container-storage.ts'
export type * from './plugins/contract.ts'
export { PLUGIN_API_VERSION } from './plugins/contract.ts'
export type * from './plugins/feedback-storage.ts'
export type * from './plugins/files.ts'
export { FILE_KEY_PATTERN } from './plugins/files.ts'
export type * from './plugins/memory-storage.ts'
export type * from './plugins/storage.ts'
export { documentHeaders } from './search/document-headers.ts'
