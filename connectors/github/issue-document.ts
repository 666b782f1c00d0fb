import type { ExternalDocument } from '../../core/index.ts'

/** The fields of GitHub's issue (and pull request) objects the connector reads. */
export interface IssueData {
	number: number
	title: string
	body?: string | null
	state: string
	html_url?: string
	user?: { login?: string } | null
	labels?: (string | { name?: string })[]
	created_at: string
	updated_at: string
	/** How many (conversation) comments it has. */
	comments?: number
	pull_request?: { merged_at?: string | null } | null
}

export interface CommentData {
	user?: { login?: string } | null
	body?: string | null
	created_at: string
	/** Review comments only: the file commented on. */
	path?: string
}

/** An issue's id within the connection: `owner/repo#12` (files are `owner/repo:path`, so the two never mix). */
export const issueExternalId = (fullName: string, number: number) => `${fullName}#${number}`

const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`
const author = (user: { login?: string } | null | undefined) => `@${user?.login ?? 'ghost'}`
const labelNames = (issue: IssueData) =>
	(issue.labels ?? []).map((label) => (typeof label === 'string' ? label : (label.name ?? ''))).filter(Boolean)

export function stateOf(issue: IssueData): string {
	return issue.pull_request?.merged_at ? 'merged' : issue.state
}

/**
 * One document per issue or pull request: title, kind, state, labels, author and body, then every comment (review
 * comments on a pull request's code included) in the order written, each with its author and date.
 */
export function issueDocument(
	repository: { fullName: string },
	issue: IssueData,
	comments: CommentData[],
	webUrl: string,
): ExternalDocument {
	const isPull = Boolean(issue.pull_request)
	const kind = isPull ? 'Pull request' : 'Issue'
	const labels = labelNames(issue)
	const lines = [
		`# ${issue.title}`,
		'',
		`${kind} #${issue.number} in ${repository.fullName} · ${stateOf(issue)} · opened by ${author(issue.user)} on ${when(issue.created_at)}`,
		...(labels.length > 0 ? [`Labels: ${labels.join(', ')}`] : []),
		'',
		issue.body?.trim() || '(no description)',
	]
	const ordered = [...comments].sort((a, b) => a.created_at.localeCompare(b.created_at))
	if (ordered.length > 0) lines.push('', '## Comments')
	for (const comment of ordered) {
		const on = comment.path ? ` on \`${comment.path}\`` : ''
		lines.push('', `**${author(comment.user)}**${on}, ${when(comment.created_at)}:`, '', comment.body?.trim() ?? '')
	}
	return {
		externalId: issueExternalId(repository.fullName, issue.number),
		version: issue.updated_at,
		title: issue.title,
		content: lines.join('\n'),
		url: issue.html_url ?? `${webUrl}/${repository.fullName}/${isPull ? 'pull' : 'issues'}/${issue.number}`,
		metadata: {
			repository: repository.fullName,
			number: issue.number,
			kind: isPull ? 'pull_request' : 'issue',
			state: stateOf(issue),
			labels: labels.join(', '),
			author: issue.user?.login ?? 'ghost',
			comments: comments.length,
			createdAt: issue.created_at,
			updatedAt: issue.updated_at,
		},
		sourceType: isPull ? 'github_pull_request' : 'github_issue',
	}
}
