import type { ConnectionService, ConnectionView } from '../../connectors/connection-service.ts'
import type { Scope } from '../../domain/types.ts'
import { ServiceError } from '../../errors.ts'

/** v5's selection kinds: GitHub repository ids, Gmail label ids, Drive file ids, Drive (or OneDrive) folder ids. */
export type SelectionKind = 'repos' | 'labels' | 'files' | 'folders'
export type Selection = Partial<Record<SelectionKind, string[]>>
type Chosen = Partial<Record<SelectionKind, { id: string; name: string }[]>>

/** The kind each provider's resources (v3 `/resources` and `/configure`) are. */
const KIND_OF: Record<string, SelectionKind> = {
	github: 'repos',
	gmail: 'labels',
	'google-drive': 'folders',
	onedrive: 'folders',
}

/** Whether the connector chooses what it syncs (v5 `capabilities.selectable`). */
export const isSelectable = (provider: string) => provider in KIND_OF

const invalid = (details: string) => new ServiceError(400, 'Invalid request', details)

const list = (value: unknown): Record<string, unknown>[] =>
	Array.isArray(value)
		? value.filter((item): item is Record<string, unknown> => typeof item === 'object' && !!item)
		: []

/** The connection's chosen resources as v5's selection; null while it has chosen none (it syncs its default). */
export function selectionOf(connection: ConnectionView): Chosen | null {
	const settings = connection.settings ?? {}
	let chosen: { id: string; name: string }[] = []
	if (connection.provider === 'github') {
		chosen = list(settings.repositories).map((repo) => ({ id: String(repo.id), name: String(repo.fullName) }))
	} else if (connection.provider === 'gmail') {
		chosen = (Array.isArray(settings.labels) ? settings.labels : []).map((id) => ({ id: String(id), name: String(id) }))
	} else if (isSelectable(connection.provider)) {
		chosen = list(settings.folders).map((folder) => ({ id: String(folder.id), name: String(folder.name ?? folder.id) }))
	}
	const kind = KIND_OF[connection.provider]
	return kind && chosen.length > 0 ? { [kind]: chosen } : null
}

/** GitHub's configure needs each repository's full name and branch: the ids are looked up in its resource pages. */
async function githubRepositories(
	connections: ConnectionService,
	scope: Scope,
	id: string,
	wanted: string[],
): Promise<Record<string, unknown>[]> {
	const found = new Map<string, Record<string, unknown>>()
	for (let page = 1; page <= 20 && found.size < wanted.length; page++) {
		const { resources } = await connections.resources(scope, id, { page, perPage: 100, parentId: null })
		for (const repo of resources) {
			for (const key of [String(repo.id), String(repo.full_name)]) if (wanted.includes(key)) found.set(key, repo)
		}
		if (resources.length < 100) break
	}
	const missing = wanted.filter((key) => !found.has(key))
	if (missing.length > 0) throw invalid(`selection.repos: no repository ${missing.join(', ')} this account can read`)
	return wanted.map((key) => {
		const repo = found.get(key)!
		return { id: repo.id, full_name: repo.full_name, default_branch: repo.default_branch }
	})
}

/**
 * Replaces what the connection syncs with `selection` (v3 configure: the settings change, webhooks follow, a sync
 * starts). A kind the provider does not choose by, or a connector that chooses nothing, is a 400.
 */
export async function applySelection(
	connections: ConnectionService,
	scope: Scope,
	connection: ConnectionView,
	selection: Selection,
	baseUrl: string,
): Promise<void> {
	const kind = KIND_OF[connection.provider]
	if (!kind) throw invalid(`the ${connection.provider} connector does not support selection`)
	const given = (Object.keys(selection) as SelectionKind[]).filter((key) => selection[key] !== undefined)
	const other = given.find((key) => key !== kind)
	if (other) throw invalid(`selection.${other}: the ${connection.provider} connector selects ${kind} only`)
	const ids = [...new Set(selection[kind] ?? [])]
	const resources =
		connection.provider === 'github'
			? await githubRepositories(connections, scope, connection.id, ids)
			: ids.map((id) => ({ id }))
	await connections.configure(scope, connection.id, resources, baseUrl)
}
