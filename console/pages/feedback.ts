import { useState } from 'preact/hooks'
import { ErrorBox, Loading } from '../components/ui.ts'
import { api, apiPath } from '../lib/api.ts'
import { when } from '../lib/format.ts'
import { html } from '../lib/html.ts'
import { useLoad } from '../lib/use-load.ts'
import type { PageProps } from './index.ts'

interface FeedbackView {
	id: string
	type: string
	title: string
	description: string
	endpoint?: string
	requestId?: string
	expected?: string
	actual?: string
	client?: string
	contactEmail?: string
	createdAt: string
}

interface FeedbackPage {
	feedback: FeedbackView[]
	pagination: { currentPage: number; totalPages: number; totalItems: number }
}

const DETAILS: [keyof FeedbackView, string][] = [
	['endpoint', 'Endpoint'],
	['requestId', 'Request id'],
	['expected', 'Expected'],
	['actual', 'Actual'],
	['client', 'Client'],
	['contactEmail', 'Contact'],
]

/** The reports the organization sent with v5 POST /feedback (the Python SDK's `client.feedback.post_feedback`). */
export function FeedbackPage(_: PageProps) {
	const [page, setPage] = useState(1)
	const { data, error } = useLoad(() => api.get<FeedbackPage>(apiPath`/v3/feedback?page=${page}`), [page])
	return html`<section aria-labelledby="feedback-title">
		<h1 id="feedback-title">Feedback</h1>
		<p class="muted">Reports sent to <code>POST /feedback</code> (v5), newest first; at most 3 a UTC day.</p>
		<${ErrorBox} error=${error} />
		${
			data
				? data.feedback.length === 0
					? html`<p>No feedback yet.</p>`
					: html`<ul class="feedback-list">${data.feedback.map(
							(entry) => html`<li class="card" data-feedback-id=${entry.id}>
								<h2><span class="badge">${entry.type}</span> ${entry.title}</h2>
								<p class="muted">${when(entry.createdAt)} · <code>${entry.id}</code></p>
								<p class="pre">${entry.description}</p>
								<dl>${DETAILS.filter(([field]) => entry[field]).map(
									([field, label]) => html`<dt>${label}</dt><dd>${entry[field]}</dd>`,
								)}</dl>
							</li>`,
						)}</ul>
						<nav class="pager" aria-label="Feedback pages">
							<button type="button" class="small secondary" disabled=${page <= 1} onClick=${() => setPage(page - 1)}>Newer</button>
							<span>Page ${data.pagination.currentPage} of ${Math.max(1, data.pagination.totalPages)}</span>
							<button type="button" class="small secondary" disabled=${page >= data.pagination.totalPages} onClick=${() => setPage(page + 1)}>Older</button>
						</nav>`
				: error
					? null
					: html`<${Loading} />`
		}
	</section>`
}
