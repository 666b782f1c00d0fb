import { useState } from 'preact/hooks'
import { CodeBlock, ErrorBox } from '../components/ui.ts'
import { errorText, request } from '../lib/api.ts'
import { html } from '../lib/html.ts'
import type { PageProps } from './index.ts'
import { clientSnippet, curlSnippet, type PlaygroundRequest } from './snippets.ts'

type Mode = 'v4-memories' | 'v4-hybrid' | 'v4-documents' | 'v3' | 'profile'

const MODES: { value: Mode; label: string }[] = [
	{ value: 'v4-memories', label: 'Memory search (v4, memories)' },
	{ value: 'v4-hybrid', label: 'Memory search (v4, hybrid: memories and chunks)' },
	{ value: 'v4-documents', label: 'Memory search (v4, documents: chunks only)' },
	{ value: 'v3', label: 'Document search (v3)' },
	{ value: 'profile', label: 'Profile (v4)' },
]

interface Form {
	mode: Mode
	q: string
	containerTag: string
	threshold: string
	limit: string
	filters: string
	rerank: boolean
	includeDocuments: boolean
}

/** Builds the request body from the form; throws with a readable message when a field is wrong. */
export function buildRequest(form: Form): PlaygroundRequest {
	const body: Record<string, unknown> = {}
	if (form.mode === 'profile') {
		if (!form.containerTag) throw new Error('A profile needs a container tag')
		body.containerTag = form.containerTag
		if (form.q) body.q = form.q
		if (form.threshold) body.threshold = Number(form.threshold)
	} else {
		body.q = form.q
		if (form.containerTag) body.containerTag = form.containerTag
		if (form.limit) body.limit = Number(form.limit)
		if (form.rerank) body.rerank = true
		if (form.mode === 'v3') {
			if (form.threshold) body.chunkThreshold = Number(form.threshold)
		} else {
			body.searchMode = form.mode.slice(3)
			if (form.threshold) body.threshold = Number(form.threshold)
			if (form.includeDocuments) body.include = { documents: true }
		}
	}
	if (form.filters.trim()) {
		try {
			body.filters = JSON.parse(form.filters)
		} catch {
			throw new Error('Filters must be JSON, e.g. {"AND":[{"key":"author","value":"ada"}]}')
		}
	}
	const path = form.mode === 'profile' ? '/v4/profile' : form.mode === 'v3' ? '/v3/search' : '/v4/search'
	return { path, body }
}

function timingText(isProfile: boolean, result: { ms: number; serverMs: number | null; count: number }): string {
	const what = isProfile ? 'Profile' : `${result.count} result${result.count === 1 ? '' : 's'}`
	const server = result.serverMs === null ? '—' : `${result.serverMs.toFixed(1)} ms`
	return `${what} in ${Math.round(result.ms)} ms (server ${server})`
}

export function PlaygroundPage(_: PageProps) {
	const [form, setForm] = useState<Form>({
		mode: 'v4-memories',
		q: '',
		containerTag: '',
		threshold: '',
		limit: '10',
		filters: '',
		rerank: false,
		includeDocuments: false,
	})
	const [result, setResult] = useState<{ body: unknown; ms: number; serverMs: number | null; count: number } | null>(
		null,
	)
	const [error, setError] = useState<string | null>(null)
	const [busy, setBusy] = useState(false)
	const set = (field: keyof Form) => (event: Event) => {
		const target = event.target as HTMLInputElement
		setForm({ ...form, [field]: target.type === 'checkbox' ? target.checked : target.value })
	}
	let built: PlaygroundRequest | null = null
	let buildError: string | null = null
	try {
		built = buildRequest(form)
	} catch (failure) {
		buildError = errorText(failure)
	}
	const run = async (event: Event) => {
		event.preventDefault()
		setError(null)
		if (!built) return setError(buildError)
		setBusy(true)
		try {
			const answer = await request('POST', built.path, built.body)
			const body = answer.body as { results?: unknown[]; profile?: unknown }
			setResult({ body, ms: answer.ms, serverMs: answer.serverMs, count: body.results?.length ?? 0 })
		} catch (failure) {
			setResult(null)
			setError(errorText(failure))
		} finally {
			setBusy(false)
		}
	}
	const isProfile = form.mode === 'profile'
	const origin = location.origin
	return html`<section aria-labelledby="playground-title">
		<h1 id="playground-title">Search and profile playground</h1>
		<form class="card playground" onSubmit=${run}>
			<label for="pg-mode">Operation
				<select id="pg-mode" value=${form.mode} onChange=${set('mode')}>
					${MODES.map((mode) => html`<option value=${mode.value}>${mode.label}</option>`)}
				</select></label>
			<label for="pg-q">${isProfile ? 'Query (optional: adds a memory search)' : 'Query'}
				<input id="pg-q" value=${form.q} onInput=${set('q')} required=${!isProfile} /></label>
			<label for="pg-tag">Container tag${isProfile ? '' : ' (optional)'}
				<input id="pg-tag" value=${form.containerTag} onInput=${set('containerTag')} required=${isProfile} /></label>
			<div class="row">
				<label for="pg-threshold">${form.mode === 'v3' ? 'Chunk threshold' : 'Threshold'} (0 to 1)
					<input id="pg-threshold" type="number" min="0" max="1" step="0.05" value=${form.threshold}
						placeholder=${form.mode === 'v3' ? '0' : '0.6'} onInput=${set('threshold')} /></label>
				${
					isProfile
						? null
						: html`<label for="pg-limit">Limit
					<input id="pg-limit" type="number" min="1" max="100" value=${form.limit} onInput=${set('limit')} /></label>`
				}
			</div>
			<label for="pg-filters">Filters (JSON, optional)
				<textarea id="pg-filters" rows="2" value=${form.filters} onInput=${set('filters')}
					placeholder='{"AND":[{"key":"author","value":"ada"}]}'></textarea></label>
			${
				isProfile
					? null
					: html`<div class="row">
						<label class="inline"><input type="checkbox" checked=${form.rerank} onChange=${set('rerank')} /> Rerank</label>
						${form.mode.startsWith('v4') ? html`<label class="inline"><input type="checkbox" checked=${form.includeDocuments} onChange=${set('includeDocuments')} /> Include documents</label>` : null}
					</div>`
			}
			<${ErrorBox} error=${error ?? (form.filters.trim() ? buildError : null)} />
			<button type="submit" disabled=${busy}>${busy ? 'Running…' : 'Run'}</button>
		</form>
		${
			result
				? html`<div class="card" aria-live="polite">
					<p class="timing" data-testid="timing">${timingText(isProfile, result)}</p>
					<pre class="result" tabindex="0" aria-label="Response">${JSON.stringify(result.body, null, 2)}</pre>
				</div>`
				: null
		}
		${
			built
				? html`<div class="snippets">
					<${CodeBlock} label="curl" code=${curlSnippet(origin, built)} />
					<${CodeBlock} label="client" code=${clientSnippet(origin, built)} />
				</div>`
				: null
		}
	</section>`
}
