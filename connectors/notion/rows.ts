import type { SyncEvent } from '../../core/index.ts'
import { isRefused, messageOf } from './client.ts'
import type { NotionCursor } from './options.ts'
import type { Listed, Run } from './sync.ts'

type Event = SyncEvent<NotionCursor>

/**
 * Every row of a data source, past the per-query limit (10,000 rows, then `request_status: incomplete`): the SDK's
 * `iterateAllDataSourceRows` queries created_time windows. A data source Notion refuses (not shared, gone) is a
 * failure of its own; the run, and the deletions of every other page, go on.
 */
export async function* rowsOf(
	run: Run,
	dataSourceId: string,
	handlePage: (run: Run, item: Listed) => AsyncGenerator<Event>,
): AsyncGenerator<Event> {
	const { iterateAllDataSourceRows } = await import('@notionhq/client')
	// The helper calls `dataSources.query` only; each call goes through the session (pacing, one refresh on a 401).
	const client = {
		dataSources: {
			query: (args: Record<string, unknown>) =>
				run.session.call((notion, auth) => notion.dataSources.query({ ...args, auth } as never)),
		},
	}
	try {
		for await (const row of iterateAllDataSourceRows(client as never, {
			data_source_id: dataSourceId,
			page_size: 100,
		})) {
			if ((row as Listed).object === 'page') yield* handlePage(run, row as Listed)
		}
	} catch (error) {
		if (!isRefused(error) && !String(error).includes('cannot make progress')) throw error
		yield { type: 'failure', externalId: null, error: `database ${dataSourceId}: ${messageOf(error)}` }
	}
}
