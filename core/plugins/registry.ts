import { StartupError } from '../errors.ts'
import type { Logger } from '../logger.ts'
import type { AnyConnector } from './connector.ts'
import { validateConnector } from './connector-validation.ts'
import {
	type EmbedderPlugin,
	type ExtractorPlugin,
	PLUGIN_API_VERSION,
	type Plugin,
	type PluginContext,
	type PluginKind,
	type RerankerPlugin,
	type StoragePlugin,
} from './contract.ts'
import type { FilesPlugin } from './files.ts'

/** Start order; plugins stop in reverse. */
const KIND_ORDER: PluginKind[] = ['storage', 'files', 'embedder', 'extractor', 'reranker', 'connector']
/** Kinds whose init runs alongside storage's (they get no storage in their context). */
const STARTS_WITH_STORAGE = new Set<PluginKind>(['storage', 'embedder', 'extractor', 'reranker'])

export interface StartedPlugins {
	storage: StoragePlugin
	/** The file store for originals; null when the list has none (the runtime then adds files-local). */
	files: FilesPlugin | null
	embedder: EmbedderPlugin
	extractors: ExtractorPlugin[]
	reranker: RerankerPlugin | null
	connectors: AnyConnector[]
	/** Closes every started plugin in reverse start order. */
	stop(): Promise<void>
}

/** Checks the list before anything starts: shape, api version, duplicates, and the kinds a service needs. */
export function validatePlugins(plugins: unknown[]): Plugin[] {
	const seen = new Set<string>()
	const valid: Plugin[] = []
	for (const [index, candidate] of plugins.entries()) {
		const plugin = candidate as Partial<Plugin> | null
		const label = plugin && typeof plugin.name === 'string' ? `plugin "${plugin.name}"` : `plugin #${index + 1}`
		if (!plugin || typeof plugin !== 'object') throw new StartupError(`${label} is not an object`)
		if (typeof plugin.name !== 'string' || plugin.name === '') throw new StartupError(`${label} has no name`)
		if (!KIND_ORDER.includes(plugin.kind as PluginKind)) {
			throw new StartupError(
				`${label} has unknown kind "${String(plugin.kind)}" (expected one of ${KIND_ORDER.join(', ')})`,
			)
		}
		if (plugin.apiVersion !== PLUGIN_API_VERSION) {
			throw new StartupError(
				`${label} declares plugin API version ${String(plugin.apiVersion)}, but this service supports version ${PLUGIN_API_VERSION}`,
			)
		}
		const id = `${plugin.kind}:${plugin.name}`
		if (seen.has(id)) throw new StartupError(`${label} is registered twice (kind ${plugin.kind})`)
		seen.add(id)
		if (plugin.kind === 'connector') validateConnector(plugin as AnyConnector, label, seen)
		valid.push(plugin as Plugin)
	}
	for (const kind of ['storage', 'embedder'] as const) {
		const count = valid.filter((p) => p.kind === kind).length
		if (count !== 1) throw new StartupError(`exactly one ${kind} plugin is required, found ${count}`)
	}
	for (const kind of ['extractor', 'reranker'] as const) {
		const names = valid.filter((p) => p.kind === kind).map((p) => p.name)
		if (names.length > 1) throw new StartupError(`at most one ${kind} plugin is allowed, found ${names.join(', ')}`)
	}
	if (valid.filter((p) => p.kind === 'files').length > 1) throw new StartupError('at most one files plugin is allowed')
	return valid
}

/** Starts plugins kind by kind (storage first), and stops the ones already started if a later one fails. */
export async function startPlugins(
	list: unknown[],
	base: { logger: Logger; env: Record<string, string | undefined> },
): Promise<StartedPlugins> {
	const plugins = validatePlugins(list).sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind))
	const embedder = plugins.find((p): p is EmbedderPlugin => p.kind === 'embedder')!
	const storage = plugins.find((p): p is StoragePlugin => p.kind === 'storage')!
	const started: Plugin[] = []
	const stop = async () => {
		for (const plugin of [...started].reverse()) {
			try {
				await plugin.close?.()
			} catch (error) {
				base.logger.warn('plugin close failed', { plugin: plugin.name, error: String(error) })
			}
		}
		started.length = 0
	}
	const initOne = async (plugin: Plugin) => {
		const ctx: PluginContext = {
			...base,
			vectorSpace: embedder.space,
			storage: STARTS_WITH_STORAGE.has(plugin.kind) ? undefined : storage,
		}
		try {
			await plugin.init?.(ctx)
		} catch (error) {
			if (error instanceof StartupError) throw error
			throw new StartupError(
				`plugin "${plugin.name}" failed to start: ${error instanceof Error ? error.message : String(error)}`,
			)
		}
		base.logger.debug('plugin started', { kind: plugin.kind, name: plugin.name })
	}
	// Storage, embedders, extractors and rerankers do not depend on each other: loading the database, the vectors and
	// the language models at the same time shortens a cold start. Files and connectors start after, with storage.
	const first = plugins.filter((plugin) => STARTS_WITH_STORAGE.has(plugin.kind))
	const outcomes = await Promise.allSettled(first.map(initOne))
	for (const [i, outcome] of outcomes.entries()) if (outcome.status === 'fulfilled') started.push(first[i]!)
	const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected')
	if (failed) {
		await stop()
		throw failed.reason
	}
	for (const plugin of plugins.filter((plugin) => !STARTS_WITH_STORAGE.has(plugin.kind))) {
		try {
			await initOne(plugin)
		} catch (error) {
			await stop()
			throw error
		}
		started.push(plugin)
	}
	return {
		storage,
		files: plugins.find((p): p is FilesPlugin => p.kind === 'files') ?? null,
		embedder,
		extractors: plugins.filter((p): p is ExtractorPlugin => p.kind === 'extractor'),
		reranker: plugins.find((p): p is RerankerPlugin => p.kind === 'reranker') ?? null,
		connectors: plugins.filter((p): p is AnyConnector => p.kind === 'connector'),
		stop,
	}
}
