import { useState } from 'preact/hooks'
import { CopyButton, ErrorBox, Loading } from '../components/ui.ts'
import { api, apiPath, errorText } from '../lib/api.ts'
import { when } from '../lib/format.ts'
import { html } from '../lib/html.ts'
import { useLoad } from '../lib/use-load.ts'
import type { PageProps } from './index.ts'

interface KeyView {
	id: string
	name: string
	prefix: string
	createdAt: string
	lastUsedAt: string | null
	expiresAt: string | null
	containerTags: string[] | null
	expired: boolean
}

export function KeysPage({ principal }: PageProps) {
	const { data, error, reload } = useLoad(() => api.get<{ keys: KeyView[] }>('/v3/keys'), [])
	const [actionError, setActionError] = useState<string | null>(null)
	const revoke = async (key: KeyView) => {
		if (!confirm(`Revoke "${key.name}" (${key.prefix}…)? Requests with it are refused from now on.`)) return
		setActionError(null)
		try {
			await api.delete(apiPath`/v3/keys/${key.id}`)
			reload()
		} catch (failure) {
			setActionError(errorText(failure))
		}
	}
	return html`<section aria-labelledby="keys-title">
		<h1 id="keys-title">API keys</h1>
		<${CreateKey} onCreated=${reload} />
		<${ErrorBox} error=${error ?? actionError} />
		${
			data
				? html`<div class="table-wrap"><table>
					<thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Created</th><th scope="col">Last used</th>
						<th scope="col">Expires</th><th scope="col">Scope</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
					<tbody>${data.keys.map(
						(key) => html`<tr data-key-id=${key.id}>
							<td>${key.name}${key.id === principal.keyId ? html` <span class="badge">signed in</span>` : null}</td>
							<td><code>${key.prefix}…</code></td>
							<td>${when(key.createdAt)}</td><td>${when(key.lastUsedAt)}</td>
							<td>${key.expiresAt ? html`${when(key.expiresAt)}${key.expired ? html` <span class="badge status-failed">expired</span>` : null}` : 'never'}</td>
							<td>${key.containerTags ? key.containerTags.join(', ') : 'all container tags'}</td>
							<td><button type="button" class="small danger" onClick=${() => revoke(key)} aria-label=${`Revoke ${key.name}`}>Revoke</button></td>
						</tr>`,
					)}</tbody>
				</table></div>`
				: error
					? null
					: html`<${Loading} />`
		}
	</section>`
}

function CreateKey({ onCreated }: { onCreated: () => void }) {
	const [name, setName] = useState('')
	const [days, setDays] = useState('')
	const [tags, setTags] = useState('')
	const [error, setError] = useState<string | null>(null)
	const [created, setCreated] = useState<{ key: string; name: string } | null>(null)
	const submit = async (event: Event) => {
		event.preventDefault()
		setError(null)
		const containerTags = tags
			.split(',')
			.map((tag) => tag.trim())
			.filter(Boolean)
		try {
			const answer = await api.post('/v3/keys', {
				name,
				...(days ? { expiresInDays: Number(days) } : {}),
				...(containerTags.length ? { containerTags } : {}),
			})
			setCreated({ key: answer.key, name: answer.name })
			setName('')
			setDays('')
			setTags('')
			onCreated()
		} catch (failure) {
			setError(errorText(failure))
		}
	}
	return html`<form class="card" onSubmit=${submit} aria-labelledby="create-key-title">
		<h2 id="create-key-title">Create a key</h2>
		<div class="row">
			<label for="key-name">Name<input id="key-name" required maxlength="100" value=${name}
				onInput=${(event: Event) => setName((event.target as HTMLInputElement).value)} /></label>
			<label for="key-days">Expires after (days, optional)<input id="key-days" type="number" min="1" max="3650" value=${days}
				onInput=${(event: Event) => setDays((event.target as HTMLInputElement).value)} /></label>
		</div>
		<label for="key-tags">Restrict to container tags (comma-separated, optional: empty means all)
			<input id="key-tags" value=${tags} placeholder="user_1, user_2"
				onInput=${(event: Event) => setTags((event.target as HTMLInputElement).value)} /></label>
		<${ErrorBox} error=${error} />
		${
			created
				? html`<div class="new-key" role="status">
					<p><strong>Key "${created.name}" created.</strong> Copy it now: it is shown only once.</p>
					<output id="new-key" class="secret">${created.key}</output>
					<${CopyButton} text=${created.key} label="Copy key" />
					<button type="button" class="small secondary" onClick=${() => setCreated(null)}>Done</button>
				</div>`
				: null
		}
		<button type="submit">Create key</button>
	</form>`
}
