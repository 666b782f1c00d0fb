import { ConnectorAuthError, type ExternalDocument, RateLimitedError, type SyncEvent } from '../../core/index.ts'
import { splitName } from './client.ts'
import type { GithubCursor } from './options.ts'
import { guarded, type RepoSync, type Repository } from './repo-sync.ts'
import type { TreeFile } from './tree.ts'

type Event = SyncEvent<GithubCursor>

/** Git LFS keeps a small pointer in the repository and the content elsewhere (git-lfs spec v1). */
const LFS_POINTER = /^version https:\/\/git-lfs\.github\.com\/spec\/v1\n/
/** Git's own test for binary content: a NUL byte in the first 8000 bytes. */
const BINARY_PROBE_BYTES = 8000

/**
 * One file as an event: unchanged (same blob), too large (its size is known from the tree, so it is never
 * downloaded), stored in Git LFS or binary (named failures that a retry cannot mend), read, or a failure to read it,
 * which marks the run so the repository's cursor stays where it was and the file is read again next time.
 */
export async function readFile(run: RepoSync, file: TreeFile): Promise<Event> {
	const id = externalId(run.repository, file.path)
	if (await run.ctx.hasVersion(id, file.sha)) return { type: 'unchanged', externalId: id }
	if (file.size > run.maxFileBytes) {
		return {
			type: 'failure',
			externalId: id,
			error: `GITHUB_FILE_TOO_LARGE: ${file.size} bytes (limit ${run.maxFileBytes})`,
			retry: 'permanent',
		}
	}
	let bytes: Buffer
	try {
		const { data } = await guarded(() => run.octokit.git.getBlob({ ...splitName(run.name), file_sha: file.sha }))
		bytes = data.encoding === 'base64' ? Buffer.from(data.content, 'base64') : Buffer.from(data.content, 'utf8')
	} catch (error) {
		if (error instanceof ConnectorAuthError || error instanceof RateLimitedError || run.ctx.signal.aborted) throw error
		run.unread.add(file.path)
		return { type: 'failure', externalId: id, error: `could not read ${file.path}: ${(error as Error).message}` }
	}
	const text = textOf(bytes)
	if (text === null) {
		return {
			type: 'failure',
			externalId: id,
			error: `GITHUB_BINARY_FILE: ${file.path} is not text; not imported`,
			retry: 'permanent',
		}
	}
	if (LFS_POINTER.test(text)) {
		return {
			type: 'failure',
			externalId: id,
			error: `GITHUB_LFS_FILE: ${file.path} is stored in Git LFS; the repository holds only its pointer, not imported`,
			retry: 'permanent',
		}
	}
	return { type: 'upsert', document: documentOf(run, file.path, file.sha, text) }
}

/** UTF-8 text, or null for binary content (a NUL byte early on, or bytes that are not UTF-8). */
function textOf(bytes: Buffer): string | null {
	if (bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)) return null
	try {
		return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
	} catch {
		return null
	}
}

function documentOf(run: RepoSync, path: string, sha: string, content: string): ExternalDocument {
	const { name, branch } = run
	return {
		externalId: externalId(run.repository, path),
		version: sha,
		title: path.slice(path.lastIndexOf('/') + 1),
		content,
		url: `${run.webUrl}/${name}/blob/${encodeURIComponent(branch)}/${path}`,
		metadata: { repository: name, path, branch, sha },
		sourceType: 'github_markdown',
	}
}

/** Ids keep the name the repository was configured with, so a rename does not make every file new. */
export const externalId = (repository: Pick<Repository, 'fullName'>, path: string) => `${repository.fullName}:${path}`
