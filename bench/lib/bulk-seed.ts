import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import postgres from 'postgres'
import { contentHash } from '../../core/documents/service.ts'
import { newId, PIPELINE_STAGES, type Scope } from '../../core/index.ts'
import { contentKey } from '../../core/memory/normalize.ts'
import { chunkText } from '../../core/pipeline/chunker.ts'
import type { StartedPlugins } from '../../core/plugins/registry.ts'
import { textParts } from '../../plugins/storage-postgres/queries/document-text.ts'
import { vectorParam } from '../../plugins/storage-postgres/queries/params.ts'
import { TextGenerator } from '../../testkit/text.ts'
import { loadVocabulary } from './vocabulary.ts'

/** Memories per source document, as bench/lib/seed-memories.ts writes them. */
const MEMORIES_PER_DOCUMENT = 500
/** Texts generated and embedded at once before their rows are streamed. */
const BATCH = 2_000

export interface BulkTarget {
	containerTag: string
	chunks: number
	memories: number
	/** Size of each generated document; ~9 KB of prose makes ~10 chunks. */
	documentBytes: number
	seed: number
}

export interface BulkTimings {
	dropMs: number
	copyMs: number
	/** Each rebuilt index with its build time, HNSW ones included. */
	indexes: { name: string; ms: number }[]
	chunks: number
	memories: number
	/** Chunks and memories loaded per target (a target's last document may take it a few chunks past its count). */
	loaded: { containerTag: string; chunks: number; memories: number }[]
}

/** Rows of one table, in COPY's text format (tab-separated, `\N` for NULL). */
type CopyRow = (string | number | boolean | null)[]

function copyLine(row: CopyRow): string {
	return `${row
		.map((value) => {
			if (value === null) return '\\N'
			if (typeof value !== 'string') return String(value)
			return value.replace(/[\\\t\n\r]/g, (c) =>
				c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r',
			)
		})
		.join('\t')}\n`
}

const DOCUMENT_COLUMNS = [
	'id',
	'org_id',
	'container_tag',
	'content',
	'content_hash',
	'source',
	'type',
	'task_type',
	'status',
	'dreaming',
	'dreaming_status',
	'metadata',
	'stages',
	'chunk_generation',
	'memories_hash',
	'memories_formed_at',
]
const TEXT_PART_COLUMNS = ['document_id', 'content_hash', 'part', 'content']
const CHUNK_COLUMNS = [
	'id',
	'document_id',
	'org_id',
	'container_tag',
	'position',
	'content',
	'type',
	'embedding',
	'generation',
]
const MEMORY_COLUMNS = [
	'id',
	'org_id',
	'container_tag',
	'memory',
	'content_key',
	'embedding',
	'version',
	'is_latest',
	'root_id',
	'is_static',
]
const SOURCE_COLUMNS = ['memory_id', 'document_id', 'chunk_positions', 'turn_indexes']

/** One COPY stream per table, fed line by line (the `postgres` client's writable COPY). */
class CopyStreams {
	private readonly queues = new Map<string, string[]>()

	push(table: string, row: CopyRow): void {
		const queue = this.queues.get(table) ?? []
		if (queue.length === 0) this.queues.set(table, queue)
		queue.push(copyLine(row))
	}

	/** Sends what was queued, one COPY per table, in the order given (parents first). */
	async flush(sql: postgres.Sql, order: [string, string[]][]): Promise<void> {
		for (const [table, columns] of order) {
			const lines = this.queues.get(table)
			if (!lines || lines.length === 0) continue
			this.queues.set(table, [])
			const writable = await sql.unsafe(`COPY ${table} (${columns.join(', ')}) FROM STDIN`).writable()
			await pipeline(Readable.from(batches(lines)), writable)
		}
	}
}

function* batches(lines: string[]): Generator<string> {
	for (let i = 0; i < lines.length; i += 500) yield lines.slice(i, i + 500).join('')
}

const TABLE_ORDER: [string, string[]][] = [
	['documents', DOCUMENT_COLUMNS],
	['document_text_parts', TEXT_PART_COLUMNS],
	['chunks', CHUNK_COLUMNS],
	['memories', MEMORY_COLUMNS],
	['memory_sources', SOURCE_COLUMNS],
]

/**
 * The heavy indexes of the tables the load fills: every secondary index of chunks and memories (HNSW, GIN, btree).
 * Primary keys stay (COPY keeps them unique).
 */
async function heavyIndexes(sql: postgres.Sql): Promise<{ name: string; def: string }[]> {
	return sql<{ name: string; def: string }[]>`
		SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid IN ('chunks'::regclass, 'memories'::regclass) AND NOT i.indisprimary
		ORDER BY c.relname`
}

/**
 * Loads documents with their published chunks and memory source documents with their memories into one organization
 * by COPY, in the shape the service's own writes give them (see bench/lib/seed.ts and seed-memories.ts, which write
 * through the storage plugin): documents `done` at chunk generation 1 with their chunks of generation 1 and their
 * extracted text; memories as latest first versions, 500 per `memories` source document, each with its source row.
 * Generated columns (tsv) and sequences (created_seq, updated_seq) take their defaults. Every text is embedded with the
 * real embedder, so vectors and words agree as in the service.
 *
 * The secondary indexes of chunks and memories are dropped first and rebuilt after the load, HNSW with
 * `maintenance_work_mem` large enough for the graph (pgvector's advice for index builds); foreign keys are not checked
 * during the load (`session_replication_role = replica`), as every row is written with its parent.
 */
export async function bulkSeed(
	databaseUrl: string,
	embedder: StartedPlugins['embedder'],
	scope: Scope,
	targets: BulkTarget[],
	options: { maintenanceWorkMem?: string; log?: (line: string) => void } = {},
): Promise<BulkTimings> {
	const log = options.log ?? (() => {})
	const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} })
	const words = await loadVocabulary()
	try {
		const indexes = await heavyIndexes(sql)
		let started = performance.now()
		for (const index of indexes) await sql.unsafe(`DROP INDEX ${index.name}`)
		const dropMs = performance.now() - started
		await sql.unsafe('SET session_replication_role = replica')
		await sql.unsafe('SET synchronous_commit = off')
		started = performance.now()
		const loaded: BulkTimings['loaded'] = []
		for (const target of targets) {
			const generator = new TextGenerator(target.seed, words)
			const chunks = await loadChunks(sql, embedder, scope, target, generator)
			const memories = await loadMemories(sql, embedder, scope, target, generator)
			loaded.push({ containerTag: target.containerTag, chunks, memories })
			if (target.chunks >= 10_000)
				log(`bulk seed: ${target.containerTag} loaded (${chunks} chunks, ${memories} memories)`)
		}
		const chunks = loaded.reduce((total, entry) => total + entry.chunks, 0)
		const memories = loaded.reduce((total, entry) => total + entry.memories, 0)
		const copyMs = performance.now() - started
		await sql.unsafe('SET session_replication_role = DEFAULT')
		await sql.unsafe(`SET maintenance_work_mem = '${options.maintenanceWorkMem ?? '2GB'}'`)
		const rebuilt: { name: string; ms: number }[] = []
		for (const index of indexes) {
			const indexStarted = performance.now()
			await sql.unsafe(index.def)
			rebuilt.push({ name: index.name, ms: performance.now() - indexStarted })
			log(`bulk seed: ${index.name} built in ${((performance.now() - indexStarted) / 1000).toFixed(1)} s`)
		}
		await sql.unsafe('VACUUM ANALYZE')
		return { dropMs, copyMs, indexes: rebuilt, chunks, memories, loaded }
	} finally {
		await sql.end()
	}
}

/** A `done` text document's row (DOCUMENT_COLUMNS); what differs between the chunks' and the memories' sources. */
function doneDocument(
	scope: Scope,
	containerTag: string,
	id: string,
	content: string,
	hash: string,
	differs: {
		source: string
		stages: string
		chunkGeneration: number
		memoriesHash: string | null
		memoriesFormedAt: string | null
	},
): CopyRow {
	const { source, stages, chunkGeneration, memoriesHash, memoriesFormedAt } = differs
	return [
		id,
		scope.orgId,
		containerTag,
		content,
		hash,
		source,
		'text',
		'memory',
		'done',
		'instant',
		'done',
		'{"seeded":true}',
		stages,
		chunkGeneration,
		memoriesHash,
		memoriesFormedAt,
	]
}

async function loadChunks(
	sql: postgres.Sql,
	embedder: StartedPlugins['embedder'],
	scope: Scope,
	target: BulkTarget,
	generator: TextGenerator,
): Promise<number> {
	const streams = new CopyStreams()
	// The next batch is generated and embedded here while the database takes the previous one.
	let sending: Promise<void> = Promise.resolve()
	let written = 0
	while (written < target.chunks) {
		const documents: { id: string; content: string; pieces: string[] }[] = []
		let batchChunks = 0
		while (batchChunks < BATCH && written + batchChunks < target.chunks) {
			const content = generator.prose(target.documentBytes)
			const pieces = chunkText(content).map((piece) => piece.content)
			documents.push({ id: newId(), content, pieces })
			batchChunks += pieces.length
		}
		const vectors = await embedder.embed(
			documents.flatMap((document) => document.pieces),
			'document',
		)
		const now = new Date().toISOString()
		const stages = JSON.stringify(
			PIPELINE_STAGES.map((stage) => ({ stage, endedAt: now, outcome: 'ok', startedAt: now })),
		)
		let v = 0
		for (const document of documents) {
			const hash = contentHash(document.content)
			streams.push(
				'documents',
				doneDocument(scope, target.containerTag, document.id, document.content, hash, {
					source: 'text',
					stages,
					chunkGeneration: 1,
					memoriesHash: null,
					memoriesFormedAt: null,
				}),
			)
			textParts(document.content).forEach((part, i) => {
				streams.push('document_text_parts', [document.id, hash, i, part])
			})
			document.pieces.forEach((piece, position) => {
				streams.push('chunks', [
					newId(),
					document.id,
					scope.orgId,
					target.containerTag,
					position,
					piece,
					'text',
					vectorParam(vectors[v++]!),
					1,
				])
			})
		}
		await sending
		sending = streams.flush(sql, TABLE_ORDER)
		written += batchChunks
	}
	await sending
	return written
}

async function loadMemories(
	sql: postgres.Sql,
	embedder: StartedPlugins['embedder'],
	scope: Scope,
	target: BulkTarget,
	generator: TextGenerator,
): Promise<number> {
	const streams = new CopyStreams()
	let sending: Promise<void> = Promise.resolve()
	let written = 0
	while (written < target.memories) {
		const texts = Array.from({ length: Math.min(MEMORIES_PER_DOCUMENT, target.memories - written) }, () =>
			generator.memory(),
		)
		const vectors = await embedder.embed(texts, 'document')
		const documentId = newId()
		const content = texts.join('\n')
		const hash = contentHash(content)
		const now = new Date().toISOString()
		streams.push(
			'documents',
			doneDocument(scope, target.containerTag, documentId, content, hash, {
				source: 'memories',
				stages: '[]',
				chunkGeneration: 0,
				memoriesHash: hash,
				memoriesFormedAt: now,
			}),
		)
		texts.forEach((memory, i) => {
			const id = newId()
			// One in five is a durable fact, as in seed-memories.ts.
			streams.push('memories', [
				id,
				scope.orgId,
				target.containerTag,
				memory,
				contentKey(memory),
				vectorParam(vectors[i]!),
				1,
				true,
				id,
				i % 5 === 0,
			])
			streams.push('memory_sources', [id, documentId, '{}', `{${i}}`])
		})
		written += texts.length
		if (written % (MEMORIES_PER_DOCUMENT * 4) === 0 || written >= target.memories) {
			await sending
			sending = streams.flush(sql, TABLE_ORDER)
		}
	}
	await sending
	return written
}
