import type { Plugin, ServiceSettings } from '../core/index.ts'
import { defaultFilesDir } from '../core/index.ts'

/** The plugin list with files-local (at MEMORY_FILES_DIR, default `<dataDir>/files`) when it names no files plugin. */
export async function withDefaultFiles(plugins: Plugin[], settings: ServiceSettings): Promise<Plugin[]> {
	if (plugins.some((plugin) => plugin?.kind === 'files')) return plugins
	const { filesLocal } = await import('../plugins/files-local/index.ts')
	return [...plugins, filesLocal({ dir: settings.filesDir ?? defaultFilesDir(settings.dataDir) })]
}
