/** Where the GitHub connector finds GitHub, and what it imports. */
export interface GithubOptions {
	/** REST API root. Default `https://api.github.com`; GitHub Enterprise Server: `https://HOST/api/v3`. */
	apiUrl?: string
	/** Web root for OAuth and file links. Default `https://github.com`; Enterprise Server: `https://HOST`. */
	webUrl?: string
	/** Largest file imported, in bytes (larger ones are recorded as failures). Default 1 MiB. */
	maxFileBytes?: number
	/**
	 * Hours between full listings of a repository's issues, which find deleted and transferred ones (the
	 * updated-since listing in between cannot). Default 24; 0 lists them all on every sync.
	 */
	issueReconcileHours?: number
	/** Blobs (and issues' comments) read at once. Default 2: GitHub asks for requests made serially, or nearly. */
	readConcurrency?: number
	/** Longest one request may take, in milliseconds. Default 30000. */
	timeoutMs?: number
	/** Longest rate-limit wait sat out within a sync, in seconds; a longer one ends the sync as rate limited. Default 60. */
	maxRateLimitWaitSeconds?: number
	/** Base of the back-off between tries of a request that failed with a 5xx or on the network. Default 1000 ms. */
	retryBaseMs?: number
}

export interface GithubSettings {
	/** Repositories to sync, chosen through resources and configure. */
	repositories: { id: number; fullName: string; defaultBranch: string }[]
	/** Also import source code files (not only Markdown, text and documentation). */
	includeCode: boolean
	/** Also import issues and pull requests with their comments, one document each. */
	includeIssues: boolean
}

/**
 * Per repository (`owner/name`): the commit last synced; with issues, `issues:owner/name` is the updated-since time
 * of the next issue listing and `issuesListed:owner/name` when they were last listed in full.
 */
export type GithubCursor = Record<string, string>

export const DEFAULT_SETTINGS: GithubSettings = { repositories: [], includeCode: false, includeIssues: false }

const DOCUMENTATION = ['.md', '.mdx', '.markdown', '.txt', '.rst', '.adoc', '.asciidoc', '.org', '.textile']
const CODE = [
	'.ts',
	'.tsx',
	'.js',
	'.jsx',
	'.mjs',
	'.cjs',
	'.py',
	'.go',
	'.rs',
	'.java',
	'.kt',
	'.rb',
	'.php',
	'.c',
	'.h',
	'.cc',
	'.cpp',
	'.hpp',
	'.cs',
	'.swift',
	'.scala',
	'.sh',
	'.sql',
	'.yaml',
	'.yml',
	'.toml',
	'.json',
	'.css',
	'.html',
]
const DOCUMENTATION_NAMES = new Set(['readme', 'license', 'changelog', 'contributing', 'authors', 'notice'])

/** Whether a path of the repository is imported under these settings. */
export function isWanted(path: string, settings: GithubSettings): boolean {
	const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase()
	const dot = name.lastIndexOf('.')
	const extension = dot > 0 ? name.slice(dot) : ''
	if (DOCUMENTATION.includes(extension) || (extension === '' && DOCUMENTATION_NAMES.has(name))) return true
	return settings.includeCode && CODE.includes(extension)
}
