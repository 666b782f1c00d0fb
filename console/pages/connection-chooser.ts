import { useState } from 'preact/hooks'
import { ErrorBox, Loading } from '../components/ui.ts'
import { api, apiPath, errorText } from '../lib/api.ts'
import { html } from '../lib/html.ts'
import { href } from '../lib/router.ts'
import { useLoad } from '../lib/use-load.ts'

type Resource = Record<string, unknown> & { id: string | number }

const nameOf = (resource: Resource) =>
	String(resource.full_name ?? resource.fullName ?? resource.name ?? resource.title ?? resource.id)

/** Only a web address is followed after saving: the link came from outside the console. */
function safeReturn(url: string | undefined): string | null {
	if (!url) return null
	try {
		const parsed = new URL(url)
		return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null
	} catch {
		return null
	}
}

/**
 * What a connection syncs, chosen among its provider's resources (the v5 picker link of
 * GET /ns/{ns}/connectors/{id}?include=picker opens this page: `#/connections/{id}/choose/{expires}/{returnUrl}`).
 */
export function ConnectionChooser({ id, expires, returnUrl }: { id: string; expires?: string; returnUrl?: string }) {
	const expired = expires !== undefined && !(Number(expires) * 1000 > Date.now())
	const [chosen, setChosen] = useState<Set<string>>(new Set())
	const { data, error } = useLoad(async () => {
		if (expired) return { resources: [] as Resource[], namespace: undefined, kind: null }
		const [page, connection] = await Promise.all([
			api.get<{ resources: Resource[] }>(apiPath`/v3/connections/${id}/resources?page=1&per_page=100`),
			api.get<{ containerTags: string[] }>(apiPath`/v3/connections/${id}`),
		])
		// What the connection syncs now starts ticked (its v5 selection), so saving keeps what is not unticked.
		const namespace = connection.containerTags[0]
		let kind: string | null = null
		if (namespace) {
			const connector = await api.get<{ selection: Record<string, { id: string }[]> | null }>(
				apiPath`/ns/${namespace}/connectors/${id}`,
			)
			kind = Object.keys(connector.selection ?? {})[0] ?? null
			setChosen(new Set(Object.values(connector.selection ?? {}).flatMap((items) => items.map((item) => item.id))))
		}
		return { ...page, namespace, kind }
	}, [id])
	const [saved, setSaved] = useState<string | null>(null)
	const [failure, setFailure] = useState<string | null>(null)
	if (expired) {
		return html`<section aria-labelledby="choose-title"><h1 id="choose-title">Choose what to sync</h1>
			<p role="alert" class="error">This picker link has expired; ask for a new one.</p></section>`
	}
	const toggle = (key: string) => {
		const next = new Set(chosen)
		if (next.has(key)) next.delete(key)
		else next.add(key)
		setChosen(next)
	}
	const save = async (event: Event) => {
		event.preventDefault()
		setFailure(null)
		try {
			const listed = data?.resources ?? []
			const unlisted = [...chosen].filter((key) => !listed.some((resource) => String(resource.id) === key))
			if (unlisted.length > 0 && data?.namespace && data.kind) {
				// Chosen before but not on this page (a nested folder, a repository past the first 100): the selection
				// names them by id, so none is dropped.
				await api.patch(apiPath`/ns/${data.namespace}/connectors/${id}`, { selection: { [data.kind]: [...chosen] } })
				setSaved('Selection saved; a sync has started')
			} else {
				const resources = listed.filter((resource) => chosen.has(String(resource.id)))
				const answer = await api.post<{ message: string }>(apiPath`/v3/connections/${id}/configure`, { resources })
				setSaved(answer.message)
			}
			const next = safeReturn(returnUrl)
			if (next) location.assign(next)
		} catch (caught) {
			setFailure(errorText(caught))
		}
	}
	return html`<section aria-labelledby="choose-title">
		<h1 id="choose-title">Choose what to sync</h1>
		<p><a href=${href('connections', id)}>Back to the connection</a></p>
		<${ErrorBox} error=${error ?? failure} />
		${
			data
				? html`<form class="chooser" onSubmit=${save}>
					<fieldset><legend>Resources</legend>
						${data.resources.map(
							(resource) => html`<label class="check">
								<input type="checkbox" name="resource" value=${String(resource.id)}
									checked=${chosen.has(String(resource.id))} onChange=${() => toggle(String(resource.id))} />
								${nameOf(resource)}</label>`,
						)}
					</fieldset>
					<button type="submit">Sync these</button>
					${saved ? html`<p role="status">${saved}</p>` : null}
				</form>`
				: error
					? null
					: html`<${Loading} />`
		}
	</section>`
}
