import { expect, it } from 'bun:test'
import { DIMENSIONS } from '../../plugins/embedder-local/method.ts'
import type { Db } from '../../plugins/storage-postgres/db.ts'
import { storesOver } from '../../plugins/storage-postgres/queries/index.ts'
import { newDocument, textChunk } from '../../testkit/contract/storage.contract.ts'
import { describeEachStorageDriver } from '../../testkit/storage-drivers.ts'

/** The local embedder's vector space: the default one, whose chunk rows sit just over the 2 KB TOAST threshold. */
const LOCAL_SPACE = { id: 'test:local-embedder-shape', dimensions: DIMENSIONS }

/** The chunker's largest chunk by default: 1,000 characters of distinct, hardly compressible words. */
function defaultSizeChunk(seed: number): string {
	let state = seed
	const next = () => {
		state = (state * 1_103_515_245 + 12_345) % 2 ** 31
		return state
	}
	const words: string[] = []
	while (words.join(' ').length < 990) {
		const length = 4 + (next() % 6)
		words.push(Array.from({ length }, () => String.fromCharCode(97 + (next() % 26))).join(''))
	}
	return words.join(' ').slice(0, 1_000)
}

function unitVector(seed: number): Float32Array {
	const vector = Float32Array.from({ length: DIMENSIONS }, (_, i) => Math.sin(seed + i))
	const length = Math.hypot(...vector)
	return vector.map((value) => value / length)
}

function chunkRowSuite(store: () => Db) {
	it('keeps a default-size chunk’s row, tsvector included, out of the TOAST table', async () => {
		const db = store()
		const stores = storesOver(() => db)
		const scope = { orgId: (await stores.orgs.create('org')).id }
		const { document } = await stores.documents.upsert(scope, newDocument())
		const contents = Array.from({ length: 8 }, (_, n) => defaultSizeChunk(n + 1))
		await stores.chunks.stage(
			document.id,
			contents.map((content, n) => textChunk({ content, vector: unitVector(n) }, n)),
		)
		await stores.chunks.publish(document.id)

		const [row] = await db.query<{ smallest: number; toasted: number }>(
			`SELECT (SELECT min(pg_column_size(c.*)) FROM chunks c)::int AS smallest,
				(SELECT count(*) FROM ${await toastTable(db)})::int AS toasted`,
		)
		// Over the threshold (2,032 bytes) where PostgreSQL's default moves the largest value to TOAST.
		expect(row!.smallest).toBeGreaterThan(2_032)
		expect(row!.toasted).toBe(0)

		const [hit] = await stores.search.chunksByText(scope, {
			containerTags: null,
			vector: unitVector(0),
			terms: contents[3]!.split(' ').slice(0, 3),
			limit: 1,
		})
		expect(hit?.chunkId).toBe((await stores.chunks.list(scope, document.id))[3]!.id)
	}, 60_000)
}

async function toastTable(db: Db): Promise<string> {
	const [row] = await db.query<{ name: string }>(
		"SELECT reltoastrelid::regclass::text AS name FROM pg_class WHERE relname = 'chunks'",
	)
	return row!.name
}

describeEachStorageDriver('chunk rows', LOCAL_SPACE, chunkRowSuite)
