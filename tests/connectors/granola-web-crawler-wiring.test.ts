import { describe, expect, it } from 'bun:test'
import { PLUGIN_API_VERSION, type Plugin } from '../../core/index.ts'
import { validatePlugins } from '../../core/plugins/registry.ts'
import { connectorsFromEnv } from '../../server/connectors-from-env.ts'

const base = ['storage', 'embedder'].map(
	(kind) =>
		({ apiVersion: PLUGIN_API_VERSION, kind, name: kind, space: { id: 't', dimensions: 3 } }) as unknown as Plugin,
)

describe('built-in granola and web-crawler connectors', () => {
	it('load from MEMORY_CONNECTORS and pass the registry checks', async () => {
		const connectors = await connectorsFromEnv({ MEMORY_CONNECTORS: 'granola,web-crawler' })
		expect(connectors.map((connector) => connector.provider)).toEqual(['granola', 'web-crawler'])
		expect(validatePlugins([...base, ...connectors])).toHaveLength(4)
	})

	it('take their schedules and politeness from the environment, a weekly recrawl at the least', async () => {
		const [granola, crawler] = await connectorsFromEnv({
			MEMORY_CONNECTORS: 'granola,web-crawler',
			GRANOLA_SYNC_EVERY_HOURS: '12',
			WEB_CRAWLER_RECRAWL_HOURS: '1',
		})
		expect(granola!.schedule).toEqual({ everyHours: 12 })
		expect(crawler!.schedule).toEqual({ everyHours: 168 })
		expect(connectorsFromEnv({ MEMORY_CONNECTORS: 'web-crawler', WEB_CRAWLER_DELAY_MS: 'fast' })).rejects.toThrow(
			'WEB_CRAWLER_DELAY_MS must be a number',
		)
		// Unset: every 4 hours; 0 leaves Granola on demand only; a typo stops the start instead of being ignored.
		const [polled] = await connectorsFromEnv({ MEMORY_CONNECTORS: 'granola' })
		expect(polled!.schedule).toEqual({ everyHours: 4 })
		const [onDemand] = await connectorsFromEnv({ MEMORY_CONNECTORS: 'granola', GRANOLA_SYNC_EVERY_HOURS: '0' })
		expect(onDemand!.schedule).toEqual({ everyHours: null })
		await expect(
			connectorsFromEnv({ MEMORY_CONNECTORS: 'granola', GRANOLA_SYNC_EVERY_HOURS: 'daily' }),
		).rejects.toThrow('GRANOLA_SYNC_EVERY_HOURS must be a number of 0 or more')
	})
})
