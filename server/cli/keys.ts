import { parseArgs } from 'node:util'
import { createApiKey, DEFAULT_ORG } from '../../core/auth/api-keys.ts'
import { StartupError } from '../../core/errors.ts'
import { openStorage } from './open-storage.ts'

const USAGE = `usage:
  bun run keys create --name NAME [--org ORG]   create a key (a new ORG name creates that organization)
  bun run keys list                             list keys (never shows the keys themselves)
  bun run keys revoke ID                        revoke a key`

async function run(argv: string[]): Promise<number> {
	const { positionals, values } = parseArgs({
		args: argv,
		allowPositionals: true,
		options: { name: { type: 'string' }, org: { type: 'string' } },
	})
	const [command, ...rest] = positionals
	if (command !== 'create' && command !== 'list' && command !== 'revoke') {
		console.error(USAGE)
		return 2
	}
	if (command === 'create' && !values.name) {
		console.error(`keys create needs --name\n${USAGE}`)
		return 2
	}
	if (command === 'revoke' && rest.length !== 1) {
		console.error(`keys revoke needs exactly one key id\n${USAGE}`)
		return 2
	}
	const { storage, close } = await openStorage()
	try {
		if (command === 'create') {
			const created = await createApiKey(storage, { name: values.name!, orgName: values.org ?? DEFAULT_ORG })
			if (created.orgCreated) console.log(`Created organization "${created.orgName}".`)
			console.log(
				`Created key ${created.id} "${values.name}" for organization "${created.orgName}". It is shown only once:`,
			)
			console.log(created.key)
			return 0
		}
		if (command === 'list') {
			const keys = await storage.keys.list()
			if (keys.length === 0) console.log('No keys.')
			for (const key of keys) {
				const state = key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : 'active'
				console.log(
					`${key.id}  ${key.prefix}…  ${key.name}  org=${key.orgName}  ${state}  created ${key.createdAt.toISOString()}`,
				)
			}
			return 0
		}
		const revoked = await storage.keys.revoke(rest[0]!)
		console.log(revoked ? `Revoked key ${rest[0]}.` : `No active key with id ${rest[0]}.`)
		return revoked ? 0 : 1
	} finally {
		await close()
	}
}

run(process.argv.slice(2))
	.then((code) => process.exit(code))
	.catch((error) => {
		console.error(error instanceof StartupError ? error.message : `keys failed: ${(error as Error).message}`)
		process.exit(1)
	})
