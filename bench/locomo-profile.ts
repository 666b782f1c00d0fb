/**
 * A real /v4/profile example on the LoCoMo data in `LOCOMO_DIR` (by default ../shared/datasets/locomo-dev, read in
 * place): a fresh embedded store, one conversation ingested session by session (one document of `Speaker: text` lines per session, instant
 * dreaming, one containerTag for the conversation, as bench/locomo.ts does), then POST /v4/profile for that container.
 * Prints the static and dynamic entries about each speaker (those that start with their name), trimmed.
 *
 *   bun bench/locomo-profile.ts [--conversation <id>] [--show 8]
 */
import { BenchClient } from './lib/http.ts'
import { LOCOMO_DIR, loadConversations } from './lib/locomo-data.ts'
import { ingestConversation } from './lib/locomo-ingest.ts'
import { startServer } from './lib/server.ts'
import { createStore, flagValue, prepareStore } from './lib/store.ts'
import { note } from './lib/table.ts'

const argv = process.argv.slice(2)
const SHOW = Number(flagValue(argv, 'show') ?? 8)

async function main() {
	const conversations = loadConversations()
	if (!conversations || conversations.length === 0) {
		note(`skipped: the LoCoMo dev split is not at ${LOCOMO_DIR}.`)
		return
	}
	const wanted = flagValue(argv, 'conversation')
	const conversation = wanted ? conversations.find((c) => c.id === wanted) : conversations[0]
	if (!conversation) throw new Error(`no conversation "${wanted}" in ${LOCOMO_DIR}`)
	const speakers = [...new Set(conversation.sessions.flatMap((s) => s.turns.map((t) => t.speaker)))]

	const store = await createStore('embedded')
	try {
		const { key } = await prepareStore(store)
		const server = await startServer(store)
		try {
			const client = new BenchClient(server.url, key)
			const started = performance.now()
			const index = await ingestConversation(client, conversation)
			const turns = conversation.sessions.reduce((sum, s) => sum + s.turns.length, 0)
			console.error(
				`[locomo-profile] conversation ${conversation.id}: ${conversation.sessions.length} sessions, ${turns} turns ingested in ${((performance.now() - started) / 1000).toFixed(1)} s into containerTag ${index.containerTag}`,
			)

			const reply = await client.post('/v4/profile', { containerTag: index.containerTag })
			if (reply.status !== 200) throw new Error(`/v4/profile answered ${reply.status}: ${JSON.stringify(reply.body)}`)
			const profile = reply.body.profile as { static: string[]; dynamic: string[] }
			console.log(`POST /v4/profile ${JSON.stringify({ containerTag: index.containerTag })}`)
			console.log(
				`${profile.static.length} static, ${profile.dynamic.length} dynamic; per speaker, the first ${SHOW} about them:`,
			)
			// The container holds the whole conversation; grouping by the name a statement starts with shows each
			// speaker's side (the rules extractor writes first-person statements with the speaker's name).
			const about = (speaker: string) => (memory: string) =>
				memory.startsWith(`${speaker} `) || memory.startsWith(`${speaker}'s `)
			const byspeaker = Object.fromEntries(
				speakers.map((speaker) => [
					speaker,
					{
						static: profile.static.filter(about(speaker)).slice(0, SHOW),
						dynamic: profile.dynamic.filter(about(speaker)).slice(0, SHOW),
					},
				]),
			)
			console.log(JSON.stringify(byspeaker, null, 2))
		} finally {
			await server.stop()
		}
	} finally {
		await store.dispose()
	}
}

await main()
