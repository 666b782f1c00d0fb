/**
 * The one public surface of the memory service. Plugins and connectors (ours and third parties') import only from here.
 */

export type { MemoryConfig } from './config/define.ts'
export { defineConfig } from './config/define.ts'
export type { ServiceSettings } from './config/settings.ts'
export type * from './domain/filter.ts'
export { FILTER_TYPES, isFilterGroup, MAX_FILTER_DEPTH, NUMERIC_OPERATORS } from './domain/filter.ts'
export type * from './domain/types.ts'
export { DOCUMENT_STATUSES, DOCUMENT_TYPES, PIPELINE_STAGES } from './domain/types.ts'
export { HttpError, StartupError } from './errors.ts'
export { newId } from './ids.ts'
export type { Logger } from './logger.ts'
export { createLogger } from './logger.ts'
export type { Transcript, TranscriptTurn } from './pipeline/transcript.ts'
export { parseSpeakerLine, parseTranscript } from './pipeline/transcript.ts'
export type * from './plugins/contract.ts'
export { PLUGIN_API_VERSION } from './plugins/contract.ts'
export type * from './plugins/storage.ts'
