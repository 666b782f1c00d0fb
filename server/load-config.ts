import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import type { MemoryConfig } from '../core/config/define.ts'
import { type ServiceSettings, settingsFromEnv } from '../core/config/settings.ts'
import { StartupError } from '../core/errors.ts'
import type { Plugin } from '../core/plugins/contract.ts'
import { pluginsFromEnv } from './plugins-from-env.ts'

export interface LoadedConfig {
	settings: ServiceSettings
	plugins: Plugin[]
	/** Where the configuration came from, for the startup log. */
	source: string
}

/** memory.config.ts (or MEMORY_CONFIG) when present, else the environment. */
export async function loadConfig(env: Record<string, string | undefined> = process.env): Promise<LoadedConfig> {
	let settings: ServiceSettings
	try {
		settings = settingsFromEnv(env)
	} catch (error) {
		throw new StartupError((error as Error).message)
	}
	const path = resolve(env.MEMORY_CONFIG || 'memory.config.ts')
	if (env.MEMORY_CONFIG && !existsSync(path))
		throw new StartupError(`MEMORY_CONFIG points at ${path}, which does not exist`)
	if (existsSync(path)) {
		const config = ((await import(path)).default ?? {}) as MemoryConfig
		const { plugins, ...overrides } = config
		settings = { ...settings, ...overrides }
		const list = typeof plugins === 'function' ? await plugins(settings, await fromEnv(settings, env)) : plugins
		return { settings, plugins: list ?? (await fromEnv(settings, env)), source: path }
	}
	return { settings, plugins: await fromEnv(settings, env), source: 'environment' }
}

async function fromEnv(settings: ServiceSettings, env: Record<string, string | undefined>) {
	try {
		return await pluginsFromEnv(settings, env)
	} catch (error) {
		throw new StartupError((error as Error).message)
	}
}
