/** Where the OneDrive connector finds Microsoft's cloud, and what it imports. */
export interface OnedriveOptions {
	/** Microsoft Graph's root. Default `https://graph.microsoft.com`; sovereign clouds have their own. */
	graphUrl?: string
	/** The Microsoft identity platform's root. Default `https://login.microsoftonline.com`. */
	loginUrl?: string
	/** The authority's tenant: `common` (work and personal accounts), `organizations`, `consumers` or a tenant id. */
	tenant?: string
	/** Largest file imported, in bytes (the service's upload cap): larger ones are skipped, not downloaded. */
	maxFileBytes?: number
	/** How long a change subscription lasts before it is renewed, in minutes (Graph allows 42,300 for drive items). */
	subscriptionMinutes?: number
	/** How the client waits out throttling (429, 503, 504 honour `Retry-After`): first delay and retries. */
	retry?: { delaySeconds: number; maxRetries: number }
	/**
	 * Graph change notifications (default true). A drive subscription needs a read-write scope, so this asks for
	 * `Files.ReadWrite.All`; false asks only for `Files.Read.All` and syncs on the schedule and on demand.
	 */
	changeNotifications?: boolean
}

export interface Endpoints {
	graphUrl: string
	maxFileBytes: number
	subscriptionMinutes: number
	retry: { delaySeconds: number; maxRetries: number }
}

/** The files scope: Graph refuses a drive subscription without a read-write one (personal: Files.ReadWrite). */
export const filesScope = (changeNotifications: boolean) =>
	changeNotifications ? 'Files.ReadWrite.All' : 'Files.Read.All'

export interface OnedriveSettings {
	/** Folders to sync with everything under them, chosen through resources and configure; none: the whole drive. */
	folders: { id: string; name: string }[]
}

export interface OnedriveCursor extends Record<string, string | number | boolean | null> {
	/** The delta link to read next: a page's nextLink in the middle of a pass, else the last pass's deltaLink. */
	link: string
	/** The folder selection the link was read for; another selection lists the drive again. */
	scope: string
	/** Folder id -> parent folder id (JSON), to tell whether an item lies under a chosen folder. */
	folders: string
	/** True between the pages of a connection's first listing (a crash resumes at the link). */
	initial: boolean
	/**
	 * True from the moment a folder was seen deleted or moved until the listing of the whole drive it calls for has
	 * been applied: a run that fails in between lists the drive again next time.
	 */
	relist: boolean
}

export const DEFAULT_SETTINGS: OnedriveSettings = { folders: [] }

/** Graph refuses drive item subscriptions longer than 42,300 minutes; a little less leaves room for clock skew. */
export const DEFAULT_SUBSCRIPTION_MINUTES = 42_000

export const scopeOf = (settings: OnedriveSettings) =>
	settings.folders
		.map((folder) => folder.id)
		.sort()
		.join(',')
