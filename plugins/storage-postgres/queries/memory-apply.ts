import type { FormationPlan, FormationResult, NewMemory, Scope, SourceRef } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { jsonParam, textParam, vectorParam } from './params.ts'

type Source = { memoryId: string; documentId: string } & SourceRef

/**
 * Writes formation plans (one per document, in order) with one statement per kind of change, whatever their number
 * and size. Returns one result per plan. The statements are sent together, without waiting for each answer (the
 * database runs them in order, so sources follow their memories): one round trip while the container's formation
 * lock is held. The first failure rejects the whole.
 */
export async function applyPlans(
	tx: Db,
	scope: Scope,
	containerTag: string,
	plans: FormationPlan[],
): Promise<FormationResult[]> {
	const writes: Promise<unknown>[] = []
	const documents = plans.flatMap((plan) => (plan.createDocument ? [plan.createDocument] : []))
	for (const document of documents) writes.push(createSourceDocument(tx, scope, document))
	const supersede = plans.flatMap((plan) => plan.supersede)
	if (supersede.length > 0) {
		writes.push(
			tx.query(
				`UPDATE memories SET is_latest = false, updated_at = now(), updated_seq = nextval('memory_changes')
			WHERE org_id = $1 AND id = ANY($2::text[])`,
				[scope.orgId, supersede],
			),
		)
	}
	const created = plans.flatMap((plan) => plan.create)
	writes.push(insertMemories(tx, scope, containerTag, created))
	const attachments = plans.map((plan) => mergeAttachments(plan.attach))
	writes.push(
		addSources(tx, [
			...plans.flatMap((plan) =>
				plan.documentId
					? plan.create.flatMap((m) =>
							m.source ? [{ memoryId: m.id, documentId: plan.documentId!, ...m.source }] : [],
						)
					: [],
			),
			...plans.flatMap((plan, i) =>
				plan.documentId ? attachments[i]!.map((source) => ({ ...source, documentId: plan.documentId! })) : [],
			),
		]),
	)
	const inheriting = created.filter((memory) => memory.inheritSourcesFrom)
	if (inheriting.length > 0) {
		writes.push(
			tx.query(
				`INSERT INTO memory_sources (memory_id, document_id, chunk_positions, turn_indexes)
			SELECT heir.id, s.document_id, s.chunk_positions, s.turn_indexes
			FROM unnest($1::text[], $2::text[]) AS heir(id, parent) JOIN memory_sources s ON s.memory_id = heir.parent
			ON CONFLICT (memory_id, document_id) DO NOTHING`,
				[inheriting.map((memory) => memory.id), inheriting.map((memory) => memory.inheritSourcesFrom)],
			),
		)
	}
	const attached = [
		...new Set(plans.flatMap((plan, i) => (plan.documentId ? attachments[i]!.map((a) => a.memoryId) : []))),
	]
	if (attached.length > 0) {
		writes.push(
			tx.query(
				`UPDATE memories SET updated_at = now(), updated_seq = nextval('memory_changes')
			WHERE org_id = $1 AND id = ANY($2::text[])`,
				[scope.orgId, attached],
			),
		)
	}
	const links = plans.flatMap((plan) => plan.links)
	if (links.length > 0) {
		writes.push(
			tx.query(
				`INSERT INTO memory_relations (from_id, to_id, relation)
			SELECT l.from_id, l.to_id, l.relation FROM unnest($1::text[], $2::text[], $3::text[]) AS l(from_id, to_id, relation)
			JOIN memories a ON a.id = l.from_id AND a.org_id = $4 JOIN memories b ON b.id = l.to_id AND b.org_id = $4
			ON CONFLICT DO NOTHING`,
				[
					links.map((link) => link.fromId),
					links.map((link) => link.toId),
					links.map((link) => link.relation),
					scope.orgId,
				],
			),
		)
	}
	const releasing = releaseDocumentSources(
		tx,
		plans.flatMap((plan, i) =>
			plan.documentId && plan.replaceDocumentSources
				? [
						{
							documentId: plan.documentId,
							keep: [...plan.create.map((m) => m.id), ...attachments[i]!.map((a) => a.memoryId)],
						},
					]
				: [],
		),
	)
	writes.push(
		recordFormations(
			tx,
			plans.flatMap((plan) =>
				plan.documentId && plan.formed ? [{ documentId: plan.documentId, ...plan.formed }] : [],
			),
		),
	)
	const [released] = await Promise.all([releasing, ...writes])
	return plans.map((plan, i) => ({
		created: plan.create.map((memory) => memory.id),
		attached: attachments[i]!.map((source) => source.memoryId),
		superseded: plan.supersede,
		released: plan.documentId ? (released.get(plan.documentId) ?? 0) : 0,
	}))
}

async function createSourceDocument(
	tx: Db,
	scope: Scope,
	document: NonNullable<FormationPlan['createDocument']>,
): Promise<void> {
	await tx.query(
		`INSERT INTO documents (id, org_id, container_tag, content, content_hash, title, source, type, task_type,
			dreaming, metadata, status, dreaming_status, memories_hash, memories_formed_at)
		VALUES ($1, $2, $3, $4, $5, $6, 'memories', 'text', 'memory', 'instant', $7::jsonb, 'done', 'done', $5, now())`,
		[
			document.id,
			scope.orgId,
			document.containerTag,
			textParam(document.content),
			document.contentHash,
			document.title,
			jsonParam(document.metadata),
		],
	)
}

async function insertMemories(tx: Db, scope: Scope, containerTag: string, memories: NewMemory[]): Promise<void> {
	if (memories.length === 0) return
	const column = <T>(pick: (memory: NewMemory) => T) => memories.map(pick)
	await tx.query(
		`INSERT INTO memories (id, org_id, container_tag, memory, content_key, embedding, version, parent_memory_id, root_id,
			is_latest, is_static, is_inference, subject, attribute, value, metadata, event_dates, buckets, forget_after,
			forget_reason)
		SELECT n.id, $1, $2, n.memory, n.content_key, n.embedding::vector, n.version, n.parent_memory_id, n.root_id,
			n.is_latest::bool, n.is_static::bool, n.is_inference::bool, n.subject, n.attribute, n.value, n.metadata::jsonb,
			ARRAY(SELECT jsonb_array_elements_text(n.event_dates::jsonb)),
			ARRAY(SELECT jsonb_array_elements_text(n.buckets::jsonb)),
			n.forget_after::timestamptz, n.forget_reason
		FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[], $9::text[], $10::text[],
			$11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::text[],
			$19::text[], $20::text[])
			AS n(id, memory, content_key, embedding, version, parent_memory_id, root_id, is_latest, is_static, is_inference,
				subject, attribute, value, metadata, event_dates, buckets, forget_after, forget_reason)`,
		[
			scope.orgId,
			containerTag,
			column((m) => m.id),
			column((m) => textParam(m.memory)),
			column((m) => m.contentKey),
			column((m) => vectorParam(m.embedding)),
			column((m) => m.version),
			column((m) => m.parentMemoryId),
			column((m) => m.rootId),
			// As text: postgres.js sends a boolean array as a single boolean.
			column((m) => String(m.isLatest)),
			column((m) => String(m.isStatic)),
			column((m) => String(m.isInference)),
			column((m) => m.subject),
			column((m) => m.attribute),
			column((m) => m.value),
			column((m) => jsonParam(m.metadata)),
			column((m) => JSON.stringify(m.eventDates)),
			column((m) => JSON.stringify(m.buckets)),
			column((m) => m.forgetAfter?.toISOString() ?? null),
			column((m) => m.forgetReason),
		],
	)
}

/** Adds sources; a memory a document already sources keeps one row, with the positions merged. */
async function addSources(tx: Db, sources: Source[]): Promise<void> {
	if (sources.length === 0) return
	await tx.query(
		`INSERT INTO memory_sources (memory_id, document_id, chunk_positions, turn_indexes)
		SELECT s.memory_id, s.document_id, ARRAY(SELECT jsonb_array_elements_text(s.positions::jsonb)::int),
			ARRAY(SELECT jsonb_array_elements_text(s.turns::jsonb)::int)
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS s(memory_id, document_id, positions, turns)
		ON CONFLICT (memory_id, document_id) DO UPDATE SET
			chunk_positions = ARRAY(SELECT DISTINCT p FROM unnest(memory_sources.chunk_positions || EXCLUDED.chunk_positions) AS p ORDER BY p),
			turn_indexes = ARRAY(SELECT DISTINCT t FROM unnest(memory_sources.turn_indexes || EXCLUDED.turn_indexes) AS t ORDER BY t)`,
		[
			sources.map((source) => source.memoryId),
			sources.map((source) => source.documentId),
			sources.map((source) => JSON.stringify(source.chunkPositions)),
			sources.map((source) => JSON.stringify(source.turnIndexes)),
		],
	)
}

/** One attachment per memory (an upsert may touch a row once per statement). */
function mergeAttachments(attach: FormationPlan['attach']): FormationPlan['attach'] {
	const merged = new Map<string, { memoryId: string } & SourceRef>()
	for (const source of attach) {
		const seen = merged.get(source.memoryId)
		if (!seen) merged.set(source.memoryId, { ...source })
		else {
			seen.chunkPositions = [...new Set([...seen.chunkPositions, ...source.chunkPositions])]
			seen.turnIndexes = [...new Set([...seen.turnIndexes, ...source.turnIndexes])]
		}
	}
	return [...merged.values()]
}

/**
 * Drops each re-extracted document's sources on memories it no longer states (not in its `keep`). The release
 * trigger deletes the memories left without any source and repairs their chains. Returns, per document, how many
 * memories went.
 */
async function releaseDocumentSources(
	tx: Db,
	documents: { documentId: string; keep: string[] }[],
): Promise<Map<string, number>> {
	const released = new Map<string, number>()
	if (documents.length === 0) return released
	const kept = documents.flatMap(({ documentId, keep }) => keep.map((memoryId) => [documentId, memoryId] as const))
	const dropped = await tx.query<{ document_id: string; memory_id: string }>(
		`DELETE FROM memory_sources s
		WHERE s.document_id = ANY($1::text[])
			AND NOT EXISTS (SELECT 1 FROM unnest($2::text[], $3::text[]) AS k(document_id, memory_id)
				WHERE k.document_id = s.document_id AND k.memory_id = s.memory_id)
		RETURNING s.document_id, s.memory_id`,
		[documents.map((d) => d.documentId), kept.map(([documentId]) => documentId), kept.map(([, memoryId]) => memoryId)],
	)
	if (dropped.length === 0) return released
	// The trigger ran at the end of the statement above: the memories it deleted are gone now.
	const remaining = new Set(
		(
			await tx.query<{ id: string }>('SELECT id FROM memories WHERE id = ANY($1::text[])', [
				dropped.map((row) => row.memory_id),
			])
		).map((row) => row.id),
	)
	for (const row of dropped) {
		if (!remaining.has(row.memory_id)) released.set(row.document_id, (released.get(row.document_id) ?? 0) + 1)
	}
	return released
}

async function recordFormations(
	tx: Db,
	formed: ({ documentId: string } & NonNullable<FormationPlan['formed']>)[],
): Promise<void> {
	if (formed.length === 0) return
	await tx.query(
		`UPDATE documents d SET extracted_turns = f.turns, turns_hash = f.turns_hash, memories_hash = d.content_hash,
			memories_formed_at = now(),
			dreaming_status = CASE WHEN f.dreaming_done::bool THEN 'done' ELSE d.dreaming_status END,
			stages = CASE WHEN f.stage IS NULL THEN d.stages ELSE d.stages || jsonb_build_array(f.stage::jsonb) END,
			updated_at = now(), updated_seq = nextval('document_changes')
		FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[]) AS f(id, turns, turns_hash, dreaming_done, stage)
		WHERE d.id = f.id`,
		[
			formed.map((f) => f.documentId),
			formed.map((f) => f.extractedTurns),
			formed.map((f) => f.turnsHash),
			formed.map((f) => String(f.dreamingDone)),
			formed.map((f) => jsonParam(f.stage ?? null)),
		],
	)
}
