import type { Plugin } from '../plugins/contract.ts'
import type { ServiceSettings } from './settings.ts'

/** The shape of memory.config.ts. Anything left out comes from the environment. */
export interface MemoryConfig extends Partial<ServiceSettings> {
	/** The full plugin list (exactly one storage and one embedder). Omit to build it from the environment. */
	plugins?: Plugin[] | ((settings: ServiceSettings) => Plugin[] | Promise<Plugin[]>)
}

/** Typed helper for memory.config.ts: `export default defineConfig({ ... })`. */
export function defineConfig(config: MemoryConfig): MemoryConfig {
	return config
}
