import { useState } from 'preact/hooks'
import { ErrorBox, Loading, StatusBadge } from '../components/ui.ts'
import { api, apiPath, errorText } from '../lib/api.ts'
import { duration, TERMINAL_STATUSES, when } from '../lib/format.ts'
import { html } from '../lib/html.ts'
import { go, href } from '../lib/router.ts'
import { useLoad } from '../lib/use-load.ts'

interface Stage {
	stage: string
	startedAt: string
	endedAt: string | null
	outcome: 'running' | 'ok' | 'failed'
	error?: string
}

async function loadDocument(id: string) {
	const document = await api.get(apiPath`/v3/documents/${id}`)
	const chunks = await api
		.get(apiPath`/v3/documents/${id}/chunks`)
		.catch(() => ({ chunks: [] as { position: number; content: string }[] }))
	return { document, chunks: chunks.chunks as { position: number; content: string }[] }
}

export function DocumentDetail({ id }: { id: string }) {
	const { data, error, reload } = useLoad(() => loadDocument(id), [id], {
		every: 1000,
		live: ({ document }) => !TERMINAL_STATUSES.includes(document.status) || document.dreamingStatus === 'dreaming',
	})
	const [actionError, setActionError] = useState<string | null>(null)
	const act = async (action: () => Promise<unknown>) => {
		setActionError(null)
		try {
			await action()
		} catch (failure) {
			setActionError(errorText(failure))
		}
	}
	// Actions name the loaded record by its own id, not by the route's reference (a customId the writer chose).
	const retry = (documentId: string) =>
		act(async () => {
			await api.post(apiPath`/v3/documents/${documentId}/retry`)
			await reload()
		})
	const remove = (documentId: string) =>
		act(async () => {
			if (!confirm('Delete this document, its chunks and the memories only it supports?')) return
			await api.delete(apiPath`/v3/documents/${documentId}`)
			go('documents')
		})

	if (!data) return error ? html`<${ErrorBox} error=${error} />` : html`<${Loading} />`
	const { document, chunks } = data
	const stages: Stage[] = document.stages ?? []
	const memories: { id: string; memory: string; relation?: string; version?: number }[] = document.memories ?? []
	return html`<article aria-labelledby="document-title">
		<p><a href=${href('documents')}>← Documents</a></p>
		<h1 id="document-title">${document.title ?? document.customId ?? document.id}</h1>
		<p><${StatusBadge} status=${document.status} /> <span class="muted">${document.type} · ${document.containerTag} · created ${when(document.createdAt)}</span></p>
		${document.summary ? html`<p class="summary" aria-label="Summary">${document.summary}</p>` : null}
		<${ErrorBox} error=${document.error ? `Failed: ${document.error}` : null} />
		<div class="actions">
			${document.status === 'failed' ? html`<button type="button" onClick=${() => retry(document.id)}>Retry</button>` : null}
			<button type="button" class="danger" onClick=${() => remove(document.id)}>Delete</button>
		</div>
		<${ErrorBox} error=${actionError} />
		<h2>Stages</h2>
		<ol class="timeline" aria-label="Stage timeline">
			${stages.map(
				(stage) => html`<li class=${`stage-${stage.outcome}`}>
					<strong>${stage.stage}</strong> <span class="badge">${stage.outcome}</span>
					<span class="muted"> ${when(stage.startedAt)} · ${duration(stage.startedAt, stage.endedAt)}</span>
					${stage.error ? html`<div class="error">${stage.error}</div>` : null}
				</li>`,
			)}
			${stages.length === 0 ? html`<li class="muted">Waiting for a worker.</li>` : null}
		</ol>
		<h2>Memories formed (${memories.length})</h2>
		${
			memories.length
				? html`<ul class="memories">${memories.map((m) => html`<li>${m.memory}${m.version && m.version > 1 ? html` <span class="badge">v${m.version}</span>` : null}</li>`)}</ul>`
				: html`<p class="muted">${document.dreamingStatus === 'dreaming' ? 'Memories form once the container has been quiet for a moment.' : 'None.'}</p>`
		}
		<h2>Chunks (${chunks.length})</h2>
		<ol class="chunks">${chunks.map((chunk) => html`<li><pre>${chunk.content}</pre></li>`)}</ol>
		<details><summary>Content</summary><pre class="content">${document.content}</pre></details>
	</article>`
}
