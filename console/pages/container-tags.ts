import { useState } from 'preact/hooks'
import { type ContainerTagSummary, useContainerTags } from '../components/containers-select.ts'
import { ErrorBox, Loading } from '../components/ui.ts'
import { api, apiPath, errorText } from '../lib/api.ts'
import { count, when } from '../lib/format.ts'
import { html } from '../lib/html.ts'
import { href } from '../lib/router.ts'
import { useLoad } from '../lib/use-load.ts'
import type { PageProps } from './index.ts'

export function ContainerTagsPage({ route }: PageProps) {
	const { data, error, reload } = useContainerTags()
	const selected = route[0]
	return html`<section aria-labelledby="tags-title">
		<h1 id="tags-title">Container tags</h1>
		<${ErrorBox} error=${error} />
		${
			data
				? html`<div class="table-wrap"><table>
					<thead><tr><th scope="col">Container tag</th><th scope="col">Documents</th><th scope="col">Memories</th>
						<th scope="col">Last activity</th></tr></thead>
					<tbody>${data.map(
						(tag) => html`<tr aria-selected=${tag.containerTag === selected}>
							<td><a href=${href('container-tags', tag.containerTag)}>${tag.containerTag}</a></td>
							<td>${count(tag.documentCount)}</td><td>${count(tag.memoryCount)}</td><td>${when(tag.lastActivityAt)}</td>
						</tr>`,
					)}</tbody>
				</table></div>
				${data.length === 0 ? html`<p class="muted">No container tags yet: writing to a tag creates it.</p>` : null}
				${selected ? html`<${TagDetail} key=${selected} tag=${selected} onChanged=${reload} />` : null}
				${data.length > 1 ? html`<${MergeForm} tags=${data} onMerged=${reload} />` : null}`
				: error
					? null
					: html`<${Loading} />`
		}
	</section>`
}

function TagDetail({ tag, onChanged }: { tag: string; onChanged: () => void }) {
	const { data, error } = useLoad(async () => {
		const [settings, buckets] = await Promise.all([
			api.get(apiPath`/v3/container-tags/${tag}`),
			api.post('/v4/profile/buckets', { containerTag: tag }),
		])
		return { settings, buckets: buckets.buckets as { key: string; description: string }[] }
	}, [tag])
	const [context, setContext] = useState<string | null>(null)
	const [message, setMessage] = useState<string | null>(null)
	const [actionError, setActionError] = useState<string | null>(null)
	const save = async (event: Event) => {
		event.preventDefault()
		setActionError(null)
		try {
			await api.patch(apiPath`/v3/container-tags/${tag}`, { entityContext: context ?? '' })
			setMessage('Saved.')
		} catch (failure) {
			setActionError(errorText(failure))
		}
	}
	const remove = async () => {
		if (!confirm(`Delete ${tag} with all its documents, memories and settings?`)) return
		try {
			const result = await api.delete(apiPath`/v3/container-tags/${tag}`)
			setMessage(
				`Deleted ${count(result.deletedDocumentsCount)} documents and ${count(result.deletedMemoriesCount)} memories.`,
			)
			location.hash = href('container-tags')
			onChanged()
		} catch (failure) {
			setActionError(errorText(failure))
		}
	}
	if (!data) return error ? html`<${ErrorBox} error=${error} />` : html`<${Loading} />`
	const value = context ?? data.settings.entityContext ?? ''
	return html`<article class="card" aria-labelledby="tag-title">
		<h2 id="tag-title">${tag}</h2>
		<form onSubmit=${save}>
			<label for="entity-context">Entity context (given to extractors)
				<textarea id="entity-context" rows="3" maxlength="1500" value=${value}
					onInput=${(event: Event) => setContext((event.target as HTMLTextAreaElement).value)}></textarea></label>
			<button type="submit">Save context</button>
		</form>
		<h3>Profile buckets</h3>
		<ul>${data.buckets.map((bucket) => html`<li><strong>${bucket.key}</strong> <span class="muted">${bucket.description}</span></li>`)}</ul>
		${data.buckets.length === 0 ? html`<p class="muted">No buckets.</p>` : null}
		<p><a href=${href('graph', tag)}>Open this tag in the memory graph</a></p>
		<${ErrorBox} error=${actionError} />
		${message ? html`<p class="ok" role="status">${message}</p>` : null}
		<button type="button" class="danger" onClick=${remove}>Delete tag and its content</button>
	</article>`
}

function MergeForm({ tags, onMerged }: { tags: ContainerTagSummary[]; onMerged: () => void }) {
	const [sources, setSources] = useState<string[]>([])
	const [target, setTarget] = useState('')
	const [error, setError] = useState<string | null>(null)
	const [status, setStatus] = useState<string | null>(null)
	const submit = async (event: Event) => {
		event.preventDefault()
		setError(null)
		try {
			const merge = await api.post('/v3/container-tags/merge', { containerTags: sources, targetContainerTag: target })
			setStatus(`Merge ${merge.mergeId} queued.`)
			for (let i = 0; i < 60; i++) {
				await new Promise((resolve) => setTimeout(resolve, 500))
				const state = await api.get(apiPath`/v3/container-tags/merge/${merge.mergeId}`)
				setStatus(`Merge ${state.status}: ${state.documentsMoved} documents, ${state.memoriesMoved} memories moved.`)
				if (state.status !== 'queued' && state.status !== 'running') break
			}
			onMerged()
		} catch (failure) {
			setError(errorText(failure))
		}
	}
	const toggle = (tag: string) =>
		setSources(sources.includes(tag) ? sources.filter((s) => s !== tag) : [...sources, tag])
	return html`<form class="card" onSubmit=${submit} aria-labelledby="merge-title">
		<h2 id="merge-title">Merge container tags</h2>
		<fieldset><legend>Move the content of</legend>
			${tags.map(
				(tag) => html`<label class="inline"><input type="checkbox" checked=${sources.includes(tag.containerTag)}
					onChange=${() => toggle(tag.containerTag)} /> ${tag.containerTag}</label>`,
			)}
		</fieldset>
		<label for="merge-target">into
			<select id="merge-target" required value=${target} onChange=${(event: Event) => setTarget((event.target as HTMLSelectElement).value)}>
				<option value="">Choose a target</option>
				${tags.map((tag) => html`<option value=${tag.containerTag}>${tag.containerTag}</option>`)}
			</select></label>
		<${ErrorBox} error=${error} />
		${status ? html`<p role="status">${status}</p>` : null}
		<button type="submit">Merge</button>
	</form>`
}
