/**
 * The one public surface for plugins (storage, embedders, extractors, rerankers, files, connectors): the contracts,
 * `define*` helpers and the toolkit. A plugin outside this repository imports it by name:
 * `import { defineConnector } from '@memory-service/plugin-api'`.
 */
export * from '../../core/index.ts'
