import { createHash } from 'node:crypto'
import type { Scope } from '../domain/types.ts'
import type { ConnectionRecord, SyncCounts } from '../plugins/connection-storage.ts'
import type { ExternalDocument } from '../plugins/connector.ts'
import type { ConnectorDeps } from './deps.ts'

/** The document's customId: unique per connection, so a re-sync (or a resumed one) updates instead of adding. */
export function importedCustomId(connectionId: string, externalId: string): string {
	const plain = `${connectionId}:${externalId}`
	return plain.length <= 255 ? plain : `${connectionId}:sha256:${createHash('sha256').update(externalId).digest('hex')}`
}

/** Stores one upserted item through the normal pipeline; false when the connection's documentLimit is reached. */
export async function applyUpsert(
	deps: ConnectorDeps,
	connection: ConnectionRecord,
	document: ExternalDocument,
	counts: SyncCounts,
): Promise<boolean> {
	const scope: Scope = { orgId: connection.orgId }
	const existing = await deps.storage.connections.item(connection.id, document.externalId)
	if (existing && document.version && existing.version === document.version) {
		counts.skipped++
		return true
	}
	if (!existing && connection.documentLimit !== null) {
		if ((await deps.storage.connections.countItems(connection.id)) >= connection.documentLimit) return false
	}
	const input = {
		containerTag: connection.containerTags[0],
		customId: importedCustomId(connection.id, document.externalId),
		connectionId: connection.id,
		title: document.title,
		metadata: {
			...(document.metadata ?? {}),
			provider: connection.provider,
			externalId: document.externalId,
			...(document.url ? { url: document.url } : {}),
			...(document.sourceType ? { sourceType: document.sourceType } : {}),
		},
	}
	const stored = document.file
		? await deps.files.ingestBytes(scope, { ...input, ...document.file })
		: await deps.documents.add(scope, { ...input, content: document.content ?? '' })
	await deps.storage.connections.putItem(connection.id, {
		externalId: document.externalId,
		documentId: stored.id,
		version: document.version ?? null,
	})
	if (existing) counts.updated++
	else counts.added++
	return true
}

/** Deletes an imported item's document (with its chunks and memories). */
export async function applyDelete(
	deps: ConnectorDeps,
	connection: ConnectionRecord,
	externalId: string,
	counts: SyncCounts,
): Promise<void> {
	const existing = await deps.storage.connections.item(connection.id, externalId)
	if (!existing) return
	await deps.documents.deleteMany({ orgId: connection.orgId }, { ids: [existing.documentId] })
	await deps.storage.connections.removeItem(connection.id, externalId)
	counts.deleted++
}
