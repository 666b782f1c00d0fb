import { describe, expect, it } from 'bun:test'
import { dirname, relative, resolve } from 'node:path'
import { Glob } from 'bun'
import { StartupError } from '../../core/errors.ts'
import { createLogger } from '../../core/logger.ts'
import { PLUGIN_API_VERSION, type Plugin } from '../../core/plugins/contract.ts'
import { startPlugins, validatePlugins } from '../../core/plugins/registry.ts'

/** What a connector declares besides the plugin fields. */
const minimalConnector = (provider: string) => ({
	provider,
	displayName: provider,
	auth: { type: 'none' },
	schedule: { everyHours: null },
	sync: async function* () {},
})

function fake(kind: Plugin['kind'], name: string, log: string[], extra: Record<string, unknown> = {}) {
	return {
		apiVersion: PLUGIN_API_VERSION,
		kind,
		name,
		space: { id: 'test', dimensions: 3 },
		...(kind === 'connector' ? minimalConnector(name) : {}),
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

	it('refuses a second extractor instead of silently using the first', () => {
		const log: string[] = []
		const pair = [fake('storage', 's', log), fake('embedder', 'e', log)]
		expect(() => validatePlugins([...pair, fake('extractor', 'one', log), fake('extractor', 'two', log)])).toThrow(
			'at most one extractor plugin is allowed, found one, two',
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

describe('connector declarations', () => {
	const base = [fake('storage', 's', []), fake('embedder', 'e', [])]
	const connector = (provider: string, extra: Record<string, unknown> = {}) => ({
		apiVersion: PLUGIN_API_VERSION,
		kind: 'connector',
		name: `connector-${provider}-${Math.random()}`,
		provider,
		displayName: provider,
		auth: { type: 'none' },
		schedule: { everyHours: 4 },
		sync: async function* () {},
		...extra,
	})

	it('accepts a complete declaration', () => {
		expect(validatePlugins([...base, connector('feed')])).toHaveLength(3)
	})

	it('stops the start when two connectors serve the same provider id', () => {
		expect(() => validatePlugins([...base, connector('github'), connector('github')])).toThrow(
			'provider "github" is already served by another connector',
		)
	})

	it('names what is wrong with an incomplete declaration', () => {
		expect(() => validatePlugins([...base, connector('Bad Id')])).toThrow('provider must be a lower-case id')
		expect(() => validatePlugins([...base, connector('feed', { sync: undefined })])).toThrow('sync(ctx, cursor)')
		expect(() => validatePlugins([...base, connector('feed', { schedule: { everyHours: 0 } })])).toThrow(
			'schedule.everyHours',
		)
		const oauth = { type: 'oauth2', authorizeUrl: 'nope', tokenUrl: 'https://x/t', scopes: [], pkce: true, env: {} }
		expect(() => validatePlugins([...base, connector('feed', { auth: oauth })])).toThrow('auth.authorizeUrl')
		const noEnv = { ...oauth, authorizeUrl: 'https://x/a' }
		expect(() => validatePlugins([...base, connector('feed', { auth: noEnv })])).toThrow('auth.env')
		expect(() => validatePlugins([...base, connector('feed', { auth: { type: 'credentials', fields: [] } })])).toThrow(
			'auth.fields',
		)
	})

	it('takes a webhook checked by authenticate alone, and refuses one without any check or with a bad bound', () => {
		const webhook = { routeKeys: () => [], authenticate: () => false }
		expect(validatePlugins([...base, connector('feed', { webhook })])).toHaveLength(3)
		expect(() => validatePlugins([...base, connector('feed', { webhook: { routeKeys: () => [] } })])).toThrow(
			'webhook.verify, webhook.authenticate or webhook.verifyApp is missing',
		)
		for (const bound of [{ maxRouteKeys: 0 }, { maxBodyBytes: 1.5 }, { maxRouteKeys: '10' }]) {
			expect(() => validatePlugins([...base, connector('feed', { webhook: { ...webhook, ...bound } })])).toThrow(
				'must be a positive integer',
			)
		}
	})
})

describe('plugin boundary', () => {
	const root = `${import.meta.dir}/../..`
	/** Every relative import of the files matching `glob`, resolved to a path from the repository root. */
	async function relativeImports(glob: string) {
		const found: { file: string; target: string }[] = []
		for await (const file of new Glob(glob).scan({ cwd: root })) {
			const source = await Bun.file(`${root}/${file}`).text()
			for (const match of source.matchAll(/(?:from|import)\s*\(?\s*['"](\.[^'"]+)['"]/g)) {
				found.push({ file, target: relative(root, resolve(root, dirname(file), match[1]!)) })
			}
		}
		return found
	}

	/** Pieces several built-in connectors share (Google's OAuth for Drive and Gmail), through their index only. */
	const SHARED_BY_CONNECTORS = new Set(['connectors/google/index.ts'])

	it('lets examples, which are packages of their own, import nothing outside their folder', async () => {
		const offenders = (await relativeImports('examples/**/*.ts'))
			.filter(({ file, target }) => !target.startsWith(`${file.split('/').slice(0, 2).join('/')}/`))
			.map(({ file, target }) => `${file} -> ${target}`)
		expect(offenders).toEqual([])
	})

	it('lets plugins and connectors reach core only through core/index.ts', async () => {
		const offenders: string[] = []
		for (const top of ['plugins', 'connectors']) {
			for (const { file, target } of await relativeImports(`${top}/**/*.ts`)) {
				const unit = file.split('/').slice(0, 2).join('/')
				const allowed = target === 'core/index.ts' || target.startsWith(`${unit}/`) || SHARED_BY_CONNECTORS.has(target)
				if (!allowed) offenders.push(`${file} -> ${target}`)
			}
		}
		expect(offenders).toEqual([])
	})

	it('keeps the surfaces apart: MCP and the console server never import each other, plugins or the root', async () => {
		const offenders: string[] = []
		for (const [glob, own] of [
			['mcp/**/*.ts', 'mcp/'],
			['console/serve/**/*.ts', 'console/serve/'],
		] as const) {
			for (const { file, target } of await relativeImports(glob)) {
				if (!target.startsWith(own) && !target.startsWith('core/')) offenders.push(`${file} -> ${target}`)
			}
		}
		expect(offenders).toEqual([])
	})

	it('has no import cycle between the folders of core', async () => {
		const edges = new Map<string, Set<string>>()
		const folderOf = (path: string) => path.split('/').slice(0, 2).join('/')
		for (const { file, target } of await relativeImports('core/**/*.ts')) {
			const from = folderOf(file)
			const to = folderOf(target)
			if (from === to || !from.slice(5).length || to.endsWith('.ts') || from.endsWith('.ts')) continue
			edges.set(from, (edges.get(from) ?? new Set()).add(to))
		}
		const cycles: string[] = []
		for (const [from, targets] of edges) {
			for (const to of targets) if (edges.get(to)?.has(from) && from < to) cycles.push(`${from} <-> ${to}`)
		}
		expect(cycles).toEqual([])
	})

	it('keeps core free of imports of plugins, connectors and the composition root', async () => {
		const offenders = (await relativeImports('core/**/*.ts'))
			.filter(({ target }) => !target.startsWith('core/'))
			.map(({ file, target }) => `${file} -> ${target}`)
		expect(offenders).toEqual([])
	})
})
