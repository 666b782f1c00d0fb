/** What a v5 feedback report holds (POST /feedback). */
export interface FeedbackReport {
	type: 'bug' | 'feature_request' | 'docs' | 'other'
	title: string
	description: string
	endpoint?: string
	requestId?: string
	expected?: string
	actual?: string
	client?: string
	contactEmail?: string
}

export interface NewFeedback extends FeedbackReport {
	id: string
	/** The key that sent it. */
	keyId: string
}

export interface FeedbackRecord extends NewFeedback {
	orgId: string
	createdAt: Date
}

/** Feedback reports, kept per organization. */
export interface FeedbackStore {
	/**
	 * Stores the report unless the organization already sent `maxPerDay` since 00:00 UTC (then null); answers it with
	 * the submissions left today. Concurrent submissions of one organization are counted one after the other.
	 */
	add(
		orgId: string,
		report: NewFeedback,
		maxPerDay: number,
	): Promise<{ feedback: FeedbackRecord; remaining: number } | null>
	/** One organization's reports, newest first. */
	list(orgId: string, page: { limit: number; offset: number }): Promise<{ feedback: FeedbackRecord[]; total: number }>
}
