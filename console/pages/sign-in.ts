import { useState } from 'preact/hooks'
import { ErrorBox } from '../components/ui.ts'
import { errorText, request } from '../lib/api.ts'
import { html } from '../lib/html.ts'
import { type Principal, session } from '../lib/session.ts'

export function SignIn({ onSignedIn, notice }: { onSignedIn: (principal: Principal) => void; notice?: string | null }) {
	const [key, setKey] = useState('')
	const [error, setError] = useState<string | null>(null)
	const [busy, setBusy] = useState(false)
	const submit = async (event: Event) => {
		event.preventDefault()
		setBusy(true)
		setError(null)
		try {
			const { body } = await request<Principal>('GET', '/v3/keys/current', undefined, key.trim())
			session.set(key.trim())
			onSignedIn(body)
		} catch (failure) {
			setError(`Sign-in failed. ${errorText(failure)}`)
		} finally {
			setBusy(false)
		}
	}
	return html`<main class="sign-in" id="main">
		<form class="card" onSubmit=${submit} aria-labelledby="sign-in-title">
			<h1 id="sign-in-title">Memory service console</h1>
			<p class="muted">Sign in with an API key. It is kept in this browser tab only and sent as the bearer key.</p>
			<${ErrorBox} error=${notice} />
			<label for="api-key">API key
				<input id="api-key" name="api-key" type="password" autocomplete="off" required value=${key}
					onInput=${(event: Event) => setKey((event.target as HTMLInputElement).value)} placeholder="sm_…" />
			</label>
			<${ErrorBox} error=${error} />
			<button type="submit" disabled=${busy}>${busy ? 'Signing in…' : 'Sign in'}</button>
		</form>
	</main>`
}
