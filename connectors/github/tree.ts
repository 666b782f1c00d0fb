import { splitName } from './client.ts'
import { guarded, type RepoSync } from './repo-sync.ts'

/** A file of a commit's tree, as GitHub's trees API describes it. */
export interface TreeFile {
	path: string
	sha: string
	/** Bytes of the blob: known before it is downloaded. */
	size: number
	/** Git file mode: 100644 and 100755 are files, 120000 a symbolic link. */
	mode: string
}

export interface Listing {
	files: Map<string, TreeFile>
	/** False when GitHub cut even a single directory's listing: what is missing may still exist. */
	complete: boolean
}

/** A symbolic link's blob is its target's path, not a document. */
export const isSymlink = (file: TreeFile) => file.mode === '120000'

/**
 * Every file of a commit. The recursive tree comes first; GitHub cuts it at 100,000 entries or 7 MB and says
 * `truncated` ("Get a tree": then "use the non-recursive method of fetching trees, and fetch one sub-tree at a time"),
 * so a cut tree is read again directory by directory, each subdirectory recursively where that fits.
 */
export async function listTree(run: RepoSync, sha: string): Promise<Listing> {
	const listing: Listing = { files: new Map(), complete: true }
	await readTree(run, sha, '', listing)
	return listing
}

async function readTree(run: RepoSync, sha: string, prefix: string, listing: Listing): Promise<void> {
	const get = (recursive: boolean) =>
		guarded(() =>
			run.octokit.git.getTree({
				...splitName(run.name),
				tree_sha: sha,
				...(recursive ? { recursive: 'true' } : {}),
			}),
		)
	const whole = (await get(true)).data
	if (!whole.truncated) {
		for (const entry of whole.tree) addFile(entry, prefix, listing)
		return
	}
	const level = (await get(false)).data
	if (level.truncated) listing.complete = false
	for (const entry of level.tree) {
		if (entry.type === 'tree' && entry.sha) await readTree(run, entry.sha, `${prefix}${entry.path}/`, listing)
		else addFile(entry, prefix, listing)
	}
}

function addFile(
	entry: { path?: string; sha?: string; size?: number; mode?: string; type?: string },
	prefix: string,
	listing: Listing,
): void {
	if (entry.type !== 'blob' || !entry.path || !entry.sha) return
	const path = `${prefix}${entry.path}`
	listing.files.set(path, { path, sha: entry.sha, size: entry.size ?? 0, mode: entry.mode ?? '100644' })
}
