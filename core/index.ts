/**
 * The one public surface of the memory service. Plugins and connectors (ours and third parties') import only from here.
 */
export type * from './domain/types.ts'
export type * from './domain/filter.ts'
export type * from './plugins/contract.ts'
export type * from './plugins/storage.ts'
export type { Logger } from './logger.ts'
export { PLUGIN_API_VERSION } from './plugins/contract.ts'
export { DOCUMENT_STATUSES, DOCUMENT_TYPES, PIPELINE_STAGES } from './domain/types.ts'
export { FILTER_TYPES, NUMERIC_OPERATORS, MAX_FILTER_DEPTH, isFilterGroup } from './domain/filter.ts'
export { HttpError, StartupError } from './errors.ts'
export { newId } from './ids.ts'
export { createLogger } from './logger.ts'
