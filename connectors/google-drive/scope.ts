import { createHash } from 'node:crypto'
import { statusOf } from '../google/index.ts'
import type { DriveApi } from './client.ts'
import type { GoogleDriveSettings } from './options.ts'

/** Names the folder selection, so a cursor made for another selection is recognised. */
export const scopeKey = (settings: GoogleDriveSettings) =>
	settings.folders.length === 0
		? 'all'
		: createHash('sha256')
				.update(
					settings.folders
						.map((folder) => folder.id)
						.sort()
						.join(','),
				)
				.digest('base64url')
				.slice(0, 16)

const MAX_DEPTH = 64

/**
 * Whether a file lies under one of the chosen folders, found by walking its parents up (the changes feed is
 * account-wide). Parents of folders are cached for the run.
 */
export function folderScope(api: DriveApi, settings: GoogleDriveSettings) {
	const chosen = new Set(settings.folders.map((folder) => folder.id))
	const parentsOf = new Map<string, string[]>()

	async function parents(id: string): Promise<string[]> {
		const known = parentsOf.get(id)
		if (known) return known
		try {
			const { data } = await api.call(() =>
				api.drive.files.get({ fileId: id, fields: 'id,parents', supportsAllDrives: true }),
			)
			const found = data.parents ?? []
			parentsOf.set(id, found)
			return found
		} catch (error) {
			if (statusOf(error) === 404) {
				parentsOf.set(id, [])
				return []
			}
			throw error
		}
	}

	return {
		async contains(file: { id?: string | null; parents?: string[] | null }): Promise<boolean> {
			if (chosen.size === 0) return true
			let frontier = file.parents ?? []
			const seen = new Set<string>()
			for (let depth = 0; depth < MAX_DEPTH && frontier.length > 0; depth++) {
				const next: string[] = []
				for (const id of frontier) {
					if (chosen.has(id)) return true
					if (seen.has(id)) continue
					seen.add(id)
					next.push(...(await parents(id)))
				}
				frontier = next
			}
			return false
		},
	}
}
