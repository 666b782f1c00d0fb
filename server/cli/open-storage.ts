import { lockEmbeddedStore } from '../../core/config/embedded-lock.ts'
import { StartupError } from '../../core/errors.ts'
import { createLogger } from '../../core/logger.ts'
import type { EmbedderPlugin, StoragePlugin } from '../../core/plugins/contract.ts'
import { loadConfig } from '../load-config.ts'

/** Opens only the store: the embedder is asked for its vector space but never loaded. */
export async function openStorage() {
	const config = await loadConfig()
	const storage = config.plugins.find((p): p is StoragePlugin => p.kind === 'storage')
	const embedder = config.plugins.find((p): p is EmbedderPlugin => p.kind === 'embedder')
	if (!storage || !embedder) throw new StartupError('the configuration needs a storage and an embedder plugin')
	const unlock = config.settings.databaseUrl ? () => {} : lockEmbeddedStore(config.settings.dataDir)
	const logger = createLogger('warn')
	await storage.init?.({ logger, env: process.env, vectorSpace: embedder.space })
	return {
		storage,
		async close() {
			await storage.close?.()
			unlock()
		},
	}
}
