import type { Driver, TestService } from './service.ts'
import { startTestService } from './service.ts'

export interface RestrictedScene {
	t: TestService
	/** A key restricted to `tag_a`. */
	restricted: string
	/** The id of a document in `tag_b`, which the restricted key must never see or touch. */
	bravo: string
}

/** A service with a key restricted to `tag_a` and one done document in `tag_b` under the given customId. */
export async function startRestrictedScene(
	driver: Driver,
	bravo: { content: string; customId: string; dreaming?: 'instant' },
): Promise<RestrictedScene> {
	const t = await startTestService(driver, { env: { MEMORY_KEY_CACHE_SECONDS: '0' }, extractor: null })
	const restricted = (await t.json('POST', '/v3/keys', { name: 'alpha', containerTags: ['tag_a'] })).body.key
	const added = await t.json('POST', '/v3/documents', { ...bravo, containerTag: 'tag_b' })
	await t.waitForStatus(added.body.id)
	return { t, restricted, bravo: added.body.id }
}
