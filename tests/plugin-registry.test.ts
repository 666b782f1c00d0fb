import { describe, expect, it } from 'bun:test'
import { Glob } from 'bun'
import { StartupError } from '../core/errors.ts'
import { createLogger } from '../core/logger.ts'
import { PLUGIN_API_VERSION, type Plugin } from '../core/plugins/contract.ts'
import { startPlugins, validatePlugins } from '../core/plugins/registry.ts'

function fake(kind: Plugin['kind'], name: string, log: string[], extra: Record<string, unknown> = {}) {
	return {
		apiVersion: PLUGIN_API_VERSION,
		kind,
		name,
		space: { id: 'test', dimensions: 3 },
		init: () => void log.push(`init ${name}`),
		close: () => void log.push(`close ${name}`),
		...extra,
	} as unknown as Plugin
}

const base = { logger: createLogger('silent'), env: {} }

describe('plugin registry', () => {
	it('starts plugins kind by kind, storage first, and stops them in reverse', async () => {
		const log: string[] = []
		const started = await startPlugins(
			[
				fake('connector', 'c1', log),
				fake('embedder', 'e1', log),
				fake('storage', 's1', log),
				fake('extractor', 'x1', log),
			],
			base,
		)
		expect(log).toEqual(['init s1', 'init e1', 'init x1', 'init c1'])
		await started.stop()
		expect(log.slice(4)).toEqual(['close c1', 'close x1', 'close e1', 'close s1'])
	})

	it('starts embedders and extractors alongside storage, and files and connectors with storage started', async () => {
		const log: string[] = []
		const contexts: Record<string, unknown> = {}
		const record = (name: string) => (ctx: { storage?: unknown }) => {
			contexts[name] = ctx.storage
			log.push(`init ${name}`)
		}
		const started = await startPlugins(
			[
				// Storage finishes only once the extractor has started: sequential starts would never get there.
				fake('storage', 's1', log, {
					init: async () => {
						await Bun.sleep(20)
						expect(log).toContain('init x1')
						log.push('init s1')
					},
				}),
				fake('embedder', 'e1', log, { init: record('e1') }),
				fake('extractor', 'x1', log, { init: record('x1') }),
				fake('connector', 'c1', log, { init: record('c1') }),
			],
			base,
		)
		expect(log).toEqual(['init e1', 'init x1', 'init s1', 'init c1'])
		expect(contexts.e1).toBeUndefined()
		expect(contexts.c1).toBe(started.storage)
		await started.stop()
	})

	it('refuses a duplicate plugin with a clear message', () => {
		const log: string[] = []
		expect(() =>
			validatePlugins([fake('storage', 's', log), fake('embedder', 'e', log), fake('embedder', 'e', log)]),
		).toThrow('plugin "e" is registered twice')
	})

	it('refuses an unknown plugin API version', () => {
		const log: string[] = []
		const future = { ...fake('extractor', 'x', log), apiVersion: 99 }
		expect(() => validatePlugins([fake('storage', 's', log), fake('embedder', 'e', log), future])).toThrow(
			`plugin "x" declares plugin API version 99, but this service supports version ${PLUGIN_API_VERSION}`,
		)
	})

	it('refuses an unknown kind and a list without storage or embedder', () => {
		const log: string[] = []
		expect(() => validatePlugins([{ ...fake('storage', 's', log), kind: 'cache' }])).toThrow('unknown kind "cache"')
		expect(() => validatePlugins([fake('storage', 's', log)])).toThrow('exactly one embedder plugin is required')
	})

	it('stops the plugins already started when a later one fails, and reports which', async () => {
		const log: string[] = []
		const broken = fake('embedder', 'bad', log, {
			init: () => {
				throw new Error('model missing')
			},
		})
		const attempt = startPlugins([fake('storage', 's1', log), broken], base)
		expect(attempt).rejects.toThrow(StartupError)
		await attempt.catch((error) => expect(error.message).toBe('plugin "bad" failed to start: model missing'))
		expect(log).toEqual(['init s1', 'close s1'])
	})
})

describe('plugin boundary', () => {
	it('lets plugins import from core only through core/index.ts', async () => {
		const offenders: string[] = []
		for await (const file of new Glob('plugins/**/*.ts').scan({ cwd: `${import.meta.dir}/..` })) {
			const source = await Bun.file(`${import.meta.dir}/../${file}`).text()
			for (const match of source.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
				const specifier = match[1]!
				if (specifier.includes('/core/') && !specifier.endsWith('/core/index.ts'))
					offenders.push(`${file}: ${specifier}`)
			}
		}
		expect(offenders).toEqual([])
	})
})
