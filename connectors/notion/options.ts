/** Where the Notion connector finds Notion, and how hard it may use it. */
export interface NotionOptions {
	/** API root. Default `https://api.notion.com` (a proxy, or the test emulator). */
	apiUrl?: string
	/** Requests a second per connection (Notion allows an average of three). Default 3. */
	requestsPerSecond?: number
	/**
	 * Hours between full listings, which find pages no longer shared (and trash emptied) by set difference; the runs
	 * between read only what was edited since the last one. Default 24; 0: every sync lists everything.
	 */
	reconcileEveryHours?: number
	/**
	 * The verification tokens Notion's webhook subscriptions sent (NOTION_WEBHOOK_VERIFICATION_TOKEN, comma-separated
	 * for several integrations): deliveries signed with one of them are accepted.
	 */
	webhookVerificationTokens?: string[]
	/**
	 * Minutes between walks of the whole search listing, which find pages shared (or indexed) after their last edit;
	 * runs between read only search results edited since the newest stamp seen. Default 60.
	 */
	discoverEveryMinutes?: number
	/**
	 * Hours between reads of pages showing content other objects hold (synced copies, child page titles, formulas,
	 * rollups, relations, database titles), which changes without a new stamp on the page. Default 168 (a week).
	 */
	refreshEveryHours?: number
	/**
	 * The longest one request waits for Notion's `Retry-After` within a run, in seconds (the per-workspace limit can
	 * ask for more than a minute). A longer wait ends the run as rate limited; the next one starts when Notion said
	 * and goes on from the last checkpoint. Default 600.
	 */
	maxRateLimitWaitSeconds?: number
	/** Blocks read per page at most (a page beyond it is imported cut, and says so). Default 10,000. */
	maxBlocksPerPage?: number
	/** Schedule interval in hours. Default 4. */
	syncEveryHours?: number
}

/** The sync position: the newest `last_edited_time` seen, and when everything was last listed. */
export interface NotionCursor {
	[key: string]: string | null
	/** ISO time: pages edited at or after it are read on the next incremental run. */
	editedSince: string | null
	/** ISO time of the last full listing (search, data sources, confirmation of what they left out). */
	listedAt: string | null
	/** ISO time of the last walk of the whole search listing. */
	discoveredAt: string | null
	/** ISO time the current refresh period began (part of the version of pages showing others' content). */
	refreshEpoch: string | null
	/** JSON array of imported page ids that answered 404 once: deleted when the next check answers 404 again. */
	pendingGone: string | null
	/** JSON: where a run that did not finish stopped (search page, data source), for the next one to go on from. */
	resume: string | null
}
