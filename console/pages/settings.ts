import { useState } from 'preact/hooks'
import { ErrorBox, Loading } from '../components/ui.ts'
import { api, errorText } from '../lib/api.ts'
import { html } from '../lib/html.ts'
import { loadProviders } from '../lib/providers.ts'
import { useLoad } from '../lib/use-load.ts'
import type { PageProps } from './index.ts'

/** The settings prefix and name of every registered connector that lets an organization bring its own application. */
async function loadSettings() {
	const [settings, providers] = await Promise.all([api.get<Record<string, unknown>>('/v3/settings'), loadProviders()])
	// Connectors sharing a settings key (Google Drive and Gmail) share one application: one form names them all.
	const names = new Map<string, string[]>()
	for (const p of providers)
		if (p.settingsKey) names.set(p.settingsKey, [...(names.get(p.settingsKey) ?? []), p.displayName])
	const apps = [...names].map(([id, displayNames]) => ({ id, name: displayNames.join(', ') }))
	return { settings, apps }
}

export function SettingsPage(_: PageProps) {
	const { data, error, reload } = useLoad(loadSettings, [])
	return html`<section aria-labelledby="settings-title">
		<h1 id="settings-title">Settings</h1>
		<h2>Custom OAuth applications</h2>
		<p class="muted">Use your own OAuth app for a connector. Secrets are stored encrypted and never shown again after saving;
			enabling applies to connections created afterwards.</p>
		<${ErrorBox} error=${error} />
		${
			data
				? html`<div class="providers">${data.apps.map((provider) => html`<${ProviderForm} key=${provider.id} provider=${provider} settings=${data.settings} onSaved=${reload} />`)}</div>`
				: error
					? null
					: html`<${Loading} />`
		}
	</section>`
}

function ProviderForm({
	provider,
	settings,
	onSaved,
}: {
	provider: { id: string; name: string }
	settings: Record<string, unknown>
	onSaved: () => void
}) {
	const idField = `${provider.id}ClientId`
	const secretField = `${provider.id}ClientSecret`
	const enabledField = `${provider.id}CustomKeyEnabled`
	const [clientId, setClientId] = useState((settings[idField] as string | null) ?? '')
	const [secret, setSecret] = useState('')
	const [enabled, setEnabled] = useState(settings[enabledField] === true)
	const [error, setError] = useState<string | null>(null)
	const [saved, setSaved] = useState(false)
	const masked = settings[secretField] as string | null
	const submit = async (event: Event) => {
		event.preventDefault()
		setError(null)
		setSaved(false)
		try {
			await api.patch('/v3/settings', {
				[idField]: clientId.trim() || null,
				...(secret ? { [secretField]: secret } : {}),
				[enabledField]: enabled,
			})
			setSecret('')
			setSaved(true)
			onSaved()
		} catch (failure) {
			setError(errorText(failure))
		}
	}
	return html`<form class="card provider" onSubmit=${submit} aria-labelledby=${`${provider.id}-title`}>
		<h3 id=${`${provider.id}-title`}>${provider.name}</h3>
		<label for=${`${provider.id}-client-id`}>Client id
			<input id=${`${provider.id}-client-id`} value=${clientId} autocomplete="off"
				onInput=${(event: Event) => setClientId((event.target as HTMLInputElement).value)} /></label>
		<label for=${`${provider.id}-client-secret`}>Client secret ${masked ? html`<span class="muted">(saved: <code>${masked}</code>; leave empty to keep)</span>` : null}
			<input id=${`${provider.id}-client-secret`} type="password" value=${secret} autocomplete="new-password"
				onInput=${(event: Event) => setSecret((event.target as HTMLInputElement).value)} /></label>
		<label class="inline"><input type="checkbox" checked=${enabled}
			onChange=${(event: Event) => setEnabled((event.target as HTMLInputElement).checked)} /> Use this app for new connections</label>
		<${ErrorBox} error=${error} />
		${saved ? html`<p class="ok" role="status">Saved.</p>` : null}
		<button type="submit">Save ${provider.name}</button>
	</form>`
}
