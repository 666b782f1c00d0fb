import { useEffect, useState } from 'preact/hooks'
import { Loading } from './components/ui.ts'
import { request, whenUnauthorized } from './lib/api.ts'
import { html, render } from './lib/html.ts'
import { href, useRoute } from './lib/router.ts'
import { type Principal, session } from './lib/session.ts'
import { PAGES } from './pages/index.ts'
import { SignIn } from './pages/sign-in.ts'

function App() {
	const [principal, setPrincipal] = useState<Principal | null>(null)
	const [checking, setChecking] = useState(session.key !== null)
	const [notice, setNotice] = useState<string | null>(null)
	const route = useRoute()

	const signOut = (message: string | null = null) => {
		session.clear()
		setPrincipal(null)
		setNotice(message)
	}
	useEffect(() => {
		whenUnauthorized((message) => signOut(`You were signed out: ${message}`))
		if (!session.key) return
		request<Principal>('GET', '/v3/keys/current')
			.then(({ body }) => setPrincipal(body))
			.catch(() => signOut('Your key is no longer accepted; sign in again.'))
			.finally(() => setChecking(false))
	}, [])

	if (checking) return html`<${Loading} what="Checking your key" />`
	if (!principal)
		return html`<${SignIn} notice=${notice} onSignedIn=${(p: Principal) => {
			setNotice(null)
			setPrincipal(p)
		}} />`

	const visible = PAGES.filter((page) => !page.unrestrictedOnly || principal.containerTags === null)
	const page = visible.find((candidate) => candidate.path === (route[0] ?? '')) ?? visible[0]!
	return html`<div class="shell">
		<a class="skip" href="#main">Skip to content</a>
		<header class="top">
			<span class="brand">Memory console</span>
			<span class="who" title="Organization and key restriction">
				${principal.orgName}${principal.containerTags ? ` · restricted to ${principal.containerTags.join(', ')}` : ''}
			</span>
			<button type="button" class="small secondary" onClick=${() => signOut()}>Sign out</button>
		</header>
		<nav aria-label="Console pages">
			<ul>
				${visible.map(
					(item) =>
						html`<li><a href=${href(item.path)} aria-current=${item === page ? 'page' : undefined}>${item.title}</a></li>`,
				)}
			</ul>
		</nav>
		<main id="main" tabindex="-1">
			<${page.component} route=${route.slice(1)} principal=${principal} />
		</main>
	</div>`
}

render(html`<${App} />`, document.getElementById('app')!)
