import { parseArgs } from 'node:util'
import { StartupError } from '../../core/errors.ts'
import type { Storage } from '../../core/plugins/storage.ts'
import { USAGE_METRICS } from '../../core/usage/meter.ts'
import { openStorage } from './open-storage.ts'

const USAGE = `usage:
  bun run usage show --org ORG [--since YYYY-MM-DD]                      counters per metric since a day (default: this month)
  bun run usage quota --org ORG --metric METRIC --period day|month --max N   set a quota
  bun run usage quota --org ORG --metric METRIC --clear                      remove a quota
metrics: ${USAGE_METRICS.join(', ')}`

async function orgId(storage: Storage, name: string): Promise<string> {
	const org = await storage.orgs.byName(name)
	if (!org) throw new StartupError(`no organization named "${name}"`)
	return org.id
}

async function run(argv: string[]): Promise<number> {
	const { positionals, values } = parseArgs({
		args: argv,
		allowPositionals: true,
		options: {
			org: { type: 'string' },
			since: { type: 'string' },
			metric: { type: 'string' },
			period: { type: 'string' },
			max: { type: 'string' },
			clear: { type: 'boolean' },
		},
	})
	const [command] = positionals
	const fail = (message: string) => {
		console.error(`${message}\n${USAGE}`)
		return 2
	}
	if (command !== 'show' && command !== 'quota') return fail('unknown command')
	if (!values.org) return fail('--org is required')
	if (values.since && !/^\d{4}-\d{2}-\d{2}$/.test(values.since)) return fail('--since must look like 2026-11-01')
	if (command === 'quota') {
		if (!values.metric || !(USAGE_METRICS as readonly string[]).includes(values.metric))
			return fail('--metric is required')
		const max = Number(values.max)
		if (!values.clear && (!['day', 'month'].includes(values.period ?? '') || !Number.isInteger(max) || max < 0)) {
			return fail('--period day|month and --max N (a whole number) are required, or --clear')
		}
	}
	const { storage, close } = await openStorage()
	try {
		const id = await orgId(storage, values.org)
		if (command === 'quota') {
			const quota = values.clear ? null : { period: values.period as 'day' | 'month', max: Number(values.max) }
			await storage.usage.setQuota(id, values.metric!, quota)
			console.log(
				quota ? `Quota set: ${values.metric} ${quota.max} per ${quota.period}.` : `Quota on ${values.metric} removed.`,
			)
			return 0
		}
		const since = values.since ?? `${new Date().toISOString().slice(0, 8)}01`
		const rows = await storage.usage.daily(id, since)
		console.log(`Usage of "${values.org}" since ${since}:`)
		for (const metric of USAGE_METRICS) {
			const total = rows.filter((row) => row.metric === metric).reduce((sum, row) => sum + row.amount, 0)
			console.log(`  ${metric.padEnd(11)} ${total}`)
		}
		for (const quota of await storage.usage.quotas(id)) {
			console.log(`  quota: ${quota.metric} ${quota.max} per ${quota.period}`)
		}
		return 0
	} finally {
		await close()
	}
}

run(process.argv.slice(2))
	.then((code) => process.exit(code))
	.catch((error) => {
		console.error(error instanceof StartupError ? error.message : `usage failed: ${(error as Error).message}`)
		process.exit(1)
	})
