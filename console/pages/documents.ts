import { useState } from 'preact/hooks'
import { ContainerSelect } from '../components/containers-select.ts'
import { ErrorBox, Loading, StatusBadge } from '../components/ui.ts'
import { api } from '../lib/api.ts'
import { count, shorten, TERMINAL_STATUSES, when } from '../lib/format.ts'
import { html } from '../lib/html.ts'
import { href } from '../lib/router.ts'
import { useLoad } from '../lib/use-load.ts'
import { AddDocument } from './document-add.ts'
import { DocumentDetail } from './document-detail.ts'
import type { PageProps } from './index.ts'

const STATUSES = ['queued', 'extracting', 'chunking', 'embedding', 'indexing', 'done', 'failed']
const PAGE_SIZE = 50

interface Summary {
	id: string
	customId: string | null
	title: string | null
	summary: string | null
	status: string
	type: string
	containerTags: string[]
	url: string | null
	createdAt: string
	dreamingStatus?: string
}

export function DocumentsPage({ route }: PageProps) {
	if (route[0]) return html`<${DocumentDetail} id=${route[0]} />`
	return html`<${DocumentList} />`
}

function DocumentList() {
	const [tag, setTag] = useState('')
	const [status, setStatus] = useState('')
	const [page, setPage] = useState(1)
	const { data, error, reload } = useLoad(
		() =>
			api.post<{ memories: Summary[]; totalCount: number }>('/v3/documents/list', {
				limit: PAGE_SIZE,
				page,
				...(tag ? { containerTags: [tag] } : {}),
			}),
		[tag, page],
		// Statuses update live while anything on the page is still being processed.
		{ every: 1500, live: (list) => list.memories.some((doc) => !TERMINAL_STATUSES.includes(doc.status)) },
	)
	const rows = (data?.memories ?? []).filter((doc) => !status || doc.status === status)
	const pages = data ? Math.max(1, Math.ceil(data.totalCount / PAGE_SIZE)) : 1
	return html`<section aria-labelledby="documents-title">
		<h1 id="documents-title">Documents</h1>
		<${AddDocument} onAdded=${reload} />
		<div class="filters" role="group" aria-label="Filters">
			<${ContainerSelect} id="documents-tag" value=${tag} onChange=${(value: string) => {
				setTag(value)
				setPage(1)
			}} />
			<label for="documents-status">Status
				<select id="documents-status" value=${status}
					onChange=${(event: Event) => setStatus((event.target as HTMLSelectElement).value)}>
					<option value="">Any status</option>
					${STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}
				</select>
			</label>
			<button type="button" class="secondary" onClick=${reload}>Refresh</button>
		</div>
		<${ErrorBox} error=${error} />
		${
			data
				? html`<p class="muted" aria-live="polite">${count(data.totalCount)} documents${status ? `; showing ${status} on this page` : ''}</p>
				<div class="table-wrap"><table>
					<thead><tr><th scope="col">Document</th><th scope="col">Status</th><th scope="col">Type</th>
						<th scope="col">Container tag</th><th scope="col">Created</th></tr></thead>
					<tbody>
						${rows.map(
							(doc) => html`<tr data-document-id=${doc.id}>
								<td><a href=${href('documents', doc.id)}>${shorten(doc.title ?? doc.customId ?? doc.url ?? doc.id, 60)}</a>${doc.summary ? html`<div class="muted summary">${shorten(doc.summary, 120)}</div>` : null}</td>
								<td><${StatusBadge} status=${doc.status} />${doc.dreamingStatus === 'dreaming' ? html` <span class="badge">memories pending</span>` : null}</td>
								<td>${doc.type}</td>
								<td>${doc.containerTags[0]}</td>
								<td>${when(doc.createdAt)}</td>
							</tr>`,
						)}
					</tbody>
				</table></div>
				${rows.length === 0 ? html`<p class="muted">No documents here yet.</p>` : null}
				<div class="pager">
					<button type="button" class="secondary" disabled=${page <= 1} onClick=${() => setPage(page - 1)}>Previous</button>
					<span>Page ${page} of ${pages}</span>
					<button type="button" class="secondary" disabled=${page >= pages} onClick=${() => setPage(page + 1)}>Next</button>
				</div>`
				: error
					? null
					: html`<${Loading} />`
		}
	</section>`
}
