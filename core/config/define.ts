import type { Plugin } from '../plugins/contract.ts'
import type { ServiceSettings } from './settings.ts'

/** The shape of memory.config.ts. Anything left out comes from the environment. */
export interface MemoryConfig extends Partial<ServiceSettings> {
	/**
	 * The plugins. Omit to use the defaults built from the environment. A function receives the settings and those
	 * defaults and returns the list, to extend them (`(settings, defaults) => [...defaults, myConnector()]`) or
	 * replace some; an array replaces the defaults whole (it must then hold one storage and one embedder).
	 */
	plugins?: Plugin[] | ((settings: ServiceSettings, defaults: Plugin[]) => Plugin[] | Promise<Plugin[]>)
}

/** Typed helper for memory.config.ts: `export default defineConfig({ ... })`. */
export function defineConfig(config: MemoryConfig): MemoryConfig {
	return config
}
