import { useState } from 'preact/hooks'
import { ErrorBox, Loading, StatusBadge } from '../components/ui.ts'
import { api, apiPath, errorText } from '../lib/api.ts'
import { count, when } from '../lib/format.ts'
import { html } from '../lib/html.ts'
import { loadProviders, type Provider } from '../lib/providers.ts'
import { go, href } from '../lib/router.ts'
import { useLoad } from '../lib/use-load.ts'
import { ConnectionChooser } from './connection-chooser.ts'
import type { PageProps } from './index.ts'

interface SyncRun {
	id: string
	trigger: string
	status: string
	error: string | null
	added: number
	updated: number
	deleted: number
	skipped: number
	failed: number
	notes: string[]
	retryAt: string | null
	startedAt: string
	completedAt: string | null
}

interface Connection {
	id: string
	provider: string
	containerTags: string[]
	documentLimit: number | null
	email: string | null
	status: string
	error: string | null
	createdAt: string
	lastSyncRun: SyncRun | null
}

export function ConnectionsPage({ route }: PageProps) {
	if (route[0] && route[1] === 'choose')
		return html`<${ConnectionChooser} id=${route[0]} expires=${route[2]} returnUrl=${route[3]} />`
	return route[0] ? html`<${ConnectionDetail} id=${route[0]} />` : html`<${ConnectionList} />`
}

function ConnectionList() {
	const { data, error, reload } = useLoad(() => api.post<Connection[]>('/v3/connections/list', {}), [], {
		every: 3000,
		live: (list) => list.some((c) => c.status === 'pending' || c.lastSyncRun?.status === 'running'),
	})
	return html`<section aria-labelledby="connections-title">
		<h1 id="connections-title">Connections</h1>
		<${Connect} onConnected=${reload} />
		<${ErrorBox} error=${error} />
		${
			data
				? html`<div class="table-wrap"><table>
					<thead><tr><th scope="col">Provider</th><th scope="col">Status</th><th scope="col">Container tags</th>
						<th scope="col">Last sync</th><th scope="col">Created</th></tr></thead>
					<tbody>${data.map(
						(c) => html`<tr data-connection-id=${c.id}>
							<td><a href=${href('connections', c.id)}>${c.provider}${c.email ? ` (${c.email})` : ''}</a></td>
							<td><${StatusBadge} status=${c.status} />${c.error ? html` <span class="muted">${c.error}</span>` : null}</td>
							<td>${c.containerTags.join(', ')}</td>
							<td>${c.lastSyncRun ? `${c.lastSyncRun.status}, ${when(c.lastSyncRun.startedAt)}` : 'never'}</td>
							<td>${when(c.createdAt)}</td>
						</tr>`,
					)}</tbody>
				</table></div>
				${data.length === 0 ? html`<p class="muted">No connections yet.</p>` : null}`
				: error
					? null
					: html`<${Loading} />`
		}
	</section>`
}

function Connect({ onConnected }: { onConnected: () => void }) {
	const { data: providers, error: loadError } = useLoad(loadProviders, [])
	if (!providers) return html`<${ErrorBox} error=${loadError} />`
	if (providers.length === 0) return html`<p class="muted">No connector is registered on this server.</p>`
	return html`<${ConnectForm} providers=${providers} onConnected=${onConnected} />`
}

function ConnectForm({ providers, onConnected }: { providers: Provider[]; onConnected: () => void }) {
	const [provider, setProvider] = useState(providers[0]!.provider)
	const [tag, setTag] = useState('')
	const [limit, setLimit] = useState('')
	const [values, setValues] = useState<Record<string, string>>({})
	const [error, setError] = useState<string | null>(null)
	const chosen = providers.find((p) => p.provider === provider) ?? providers[0]!
	const submit = async (event: Event) => {
		event.preventDefault()
		setError(null)
		try {
			const metadata = Object.fromEntries(chosen.fields.flatMap((f) => (values[f.key] ? [[f.key, values[f.key]]] : [])))
			const answer = await api.post(apiPath`/v3/connections/${chosen.provider}`, {
				...(tag ? { containerTags: [tag] } : {}),
				...(limit ? { documentLimit: Number(limit) } : {}),
				...(Object.keys(metadata).length > 0 ? { metadata } : {}),
				redirectUrl: `${location.origin}/console/`,
			})
			setValues({})
			if (answer.authLink) location.href = answer.authLink
			else onConnected()
		} catch (failure) {
			setError(errorText(failure))
		}
	}
	const field = (f: Provider['fields'][number]) =>
		html`<label for=${`connect-${f.key}`}>${f.label}
			<input id=${`connect-${f.key}`} type=${f.secret ? 'password' : 'text'} required autocomplete="off" value=${values[f.key] ?? ''}
				onInput=${(e: Event) => setValues({ ...values, [f.key]: (e.target as HTMLInputElement).value })} /></label>`
	return html`<form class="card" onSubmit=${submit} aria-labelledby="connect-title">
		<h2 id="connect-title">Connect a provider</h2>
		<div class="row">
			<label for="connect-provider">Provider
				<select id="connect-provider" value=${chosen.provider} onChange=${(e: Event) => setProvider((e.target as HTMLSelectElement).value)}>
					${providers.map((p) => html`<option value=${p.provider}>${p.displayName}</option>`)}
				</select></label>
			<label for="connect-tag">Container tag<input id="connect-tag" value=${tag} onInput=${(e: Event) => setTag((e.target as HTMLInputElement).value)} /></label>
			<label for="connect-limit">Document limit (optional)<input id="connect-limit" type="number" min="1" max="10000" value=${limit}
				onInput=${(e: Event) => setLimit((e.target as HTMLInputElement).value)} /></label>
		</div>
		${chosen.fields.map(field)}
		${
			chosen.authType === 'oauth2'
				? html`<p class="muted">You will be sent to ${chosen.displayName} to authorize, then back here.</p>`
				: null
		}
		<${ErrorBox} error=${error} />
		<button type="submit">Connect</button>
	</form>`
}

function ConnectionDetail({ id }: { id: string }) {
	const { data, error, reload } = useLoad(
		async () => {
			const [connection, runs, providers] = await Promise.all([
				api.get<Connection>(apiPath`/v3/connections/${id}`),
				api.get<{ syncRuns: SyncRun[] }>(apiPath`/v3/connections/${id}/sync-runs`),
				loadProviders(),
			])
			const choosable = providers.some((p) => p.provider === connection.provider && p.resources)
			return { connection, runs: runs.syncRuns, choosable }
		},
		[id],
		{ every: 2000, live: ({ runs }) => runs.some((run) => run.status === 'running') },
	)
	const [failures, setFailures] = useState<{
		runId: string
		items: { externalId: string; error: string; permanent: boolean }[]
	} | null>(null)
	const [actionError, setActionError] = useState<string | null>(null)
	const act = async (action: () => Promise<unknown>) => {
		setActionError(null)
		try {
			await action()
		} catch (failure) {
			setActionError(errorText(failure))
		}
	}
	if (!data) return error ? html`<${ErrorBox} error=${error} />` : html`<${Loading} />`
	const { connection, runs, choosable } = data
	const syncNow = () =>
		act(async () => {
			await api.post(apiPath`/v3/connections/${connection.provider}/import`, {
				containerTags: connection.containerTags,
			})
			await reload()
		})
	const remove = (deleteDocuments: boolean) =>
		act(async () => {
			const what = deleteDocuments ? 'and the documents it imported' : 'but keep the documents it imported'
			if (!confirm(`Delete this connection ${what}?`)) return
			await api.delete(apiPath`/v3/connections/${id}?deleteDocuments=${deleteDocuments}`)
			go('connections')
		})
	const showFailures = (runId: string) =>
		act(async () => {
			const answer = await api.get(apiPath`/v3/connections/${id}/sync-runs/${runId}/failures`)
			setFailures({ runId, items: answer.failures })
		})
	return html`<article aria-labelledby="connection-title">
		<p><a href=${href('connections')}>← Connections</a></p>
		<h1 id="connection-title">${connection.provider}${connection.email ? ` (${connection.email})` : ''}</h1>
		<p><${StatusBadge} status=${connection.status} /> <span class="muted">${connection.containerTags.join(', ')}
			· limit ${connection.documentLimit ?? 'none'}</span></p>
		<${ErrorBox} error=${connection.error} />
		<div class="actions">
			<button type="button" onClick=${syncNow}>Sync now</button>
			${choosable && connection.status === 'active' ? html`<a class="button" href=${href('connections', id, 'choose')}>Choose what to sync</a>` : null}
			<button type="button" class="danger" onClick=${() => remove(true)}>Delete with documents</button>
			<button type="button" class="danger" onClick=${() => remove(false)}>Delete, keep documents</button>
		</div>
		<${ErrorBox} error=${actionError} />
		<h2>Sync runs</h2>
		<div class="table-wrap"><table>
			<thead><tr><th scope="col">Started</th><th scope="col">Trigger</th><th scope="col">Status</th><th scope="col">Added</th>
				<th scope="col">Updated</th><th scope="col">Deleted</th><th scope="col">Failed</th><th scope="col">Error</th></tr></thead>
			<tbody>${runs.map(
				(run) => html`<tr>
					<td>${when(run.startedAt)}</td><td>${run.trigger}</td><td>${run.status}</td><td>${count(run.added)}</td>
					<td>${count(run.updated)}</td><td>${count(run.deleted)}</td>
					<td>${run.failed ? html`<button type="button" class="small secondary" onClick=${() => showFailures(run.id)}>${count(run.failed)} failed</button>` : '0'}</td>
					<td>${run.error ?? ''}${run.retryAt ? ` (next try ${when(run.retryAt)})` : ''}${run.notes.map(
						(note) => html`<div class="muted">${note}</div>`,
					)}</td>
				</tr>`,
			)}</tbody>
		</table></div>
		${runs.length === 0 ? html`<p class="muted">No sync yet.</p>` : null}
		${
			failures
				? html`<h3>Failures of run ${failures.runId}</h3>
					<ul>${failures.items.map((item) => html`<li><code>${item.externalId}</code>: ${item.error}${item.permanent ? html` <strong>(given up)</strong>` : ''}</li>`)}</ul>`
				: null
		}
	</article>`
}
