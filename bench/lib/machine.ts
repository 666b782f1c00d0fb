import { cpus, totalmem } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'

const ROOT = join(import.meta.dir, '..', '..')

async function packageVersion(name: string): Promise<string> {
	try {
		const manifest = (await Bun.file(join(ROOT, 'node_modules', name, 'package.json')).json()) as { version: string }
		return manifest.version
	} catch {
		return 'unknown'
	}
}

/** The server's version and the settings that change write speed the most (a throwaway CI server turns fsync off). */
export async function postgresDescription(databaseUrl: string): Promise<string> {
	const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} })
	try {
		const [row] = await sql<
			{ version: string; vector: string | null; fsync: string; commit: string; buffers: string }[]
		>`
			SELECT current_setting('server_version') AS version,
				(SELECT default_version FROM pg_available_extensions WHERE name = 'vector') AS vector,
				current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS commit,
				current_setting('shared_buffers') AS buffers`
		return `PostgreSQL ${row!.version.split(' ')[0]} + pgvector ${row!.vector ?? '?'} (fsync ${row!.fsync}, synchronous_commit ${row!.commit}, shared_buffers ${row!.buffers})`
	} catch (error) {
		return `PostgreSQL unreachable (${(error as Error).message})`
	} finally {
		await sql.end({ timeout: 1 })
	}
}

/** One line describing the machine and the software versions, printed above every table. */
export async function describeMachine(databaseUrl?: string | null): Promise<string> {
	const cpu = cpus()
	const parts = [
		`${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'})`,
		`${(totalmem() / 1024 ** 3).toFixed(1)} GiB memory`,
		`${process.platform}/${process.arch}`,
		`Bun ${Bun.version}`,
		`PGlite ${await packageVersion('@electric-sql/pglite')}`,
	]
	if (databaseUrl) parts.push(await postgresDescription(databaseUrl))
	return parts.join(', ')
}

export async function printMachine(databaseUrl?: string | null): Promise<void> {
	console.log(`Machine: ${await describeMachine(databaseUrl)}`)
	console.log(`Date: ${new Date().toISOString().replace('T', ' ').slice(0, 16)} UTC`)
}
