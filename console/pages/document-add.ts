import { useState } from 'preact/hooks'
import { ErrorBox } from '../components/ui.ts'
import { api, errorText } from '../lib/api.ts'
import { html } from '../lib/html.ts'
import { href } from '../lib/router.ts'

type Kind = 'text' | 'url' | 'file'

/** Add text, a URL or a file; the API's own error message is shown when it refuses. */
export function AddDocument({ onAdded }: { onAdded: () => void }) {
	const [kind, setKind] = useState<Kind>('text')
	const [content, setContent] = useState('')
	const [tag, setTag] = useState('')
	const [file, setFile] = useState<File | null>(null)
	const [error, setError] = useState<string | null>(null)
	const [added, setAdded] = useState<string | null>(null)
	const [busy, setBusy] = useState(false)

	const submit = async (event: Event) => {
		event.preventDefault()
		setBusy(true)
		setError(null)
		setAdded(null)
		try {
			let answer: { id: string; status: string }
			if (kind === 'file') {
				if (!file) throw new Error('Choose a file first')
				const form = new FormData()
				form.append('file', file)
				if (tag) form.append('containerTag', tag)
				answer = await api.post('/v3/documents/file', form)
			} else {
				answer = await api.post('/v3/documents', { content, ...(tag ? { containerTag: tag } : {}) })
			}
			setAdded(answer.id)
			setContent('')
			onAdded()
		} catch (failure) {
			setError(errorText(failure))
		} finally {
			setBusy(false)
		}
	}

	return html`<form class="card add-document" onSubmit=${submit} aria-labelledby="add-title">
		<h2 id="add-title">Add a document</h2>
		<fieldset class="segmented">
			<legend>Kind</legend>
			${(['text', 'url', 'file'] as Kind[]).map(
				(option) => html`<label><input type="radio" name="add-kind" value=${option} checked=${kind === option}
					onChange=${() => setKind(option)} /> ${option === 'url' ? 'URL' : option[0]!.toUpperCase() + option.slice(1)}</label>`,
			)}
		</fieldset>
		${
			kind === 'text'
				? html`<label for="add-content">Text
					<textarea id="add-content" rows="4" required value=${content}
						onInput=${(event: Event) => setContent((event.target as HTMLTextAreaElement).value)}></textarea></label>`
				: kind === 'url'
					? html`<label for="add-url">URL
						<input id="add-url" type="url" required placeholder="https://…" value=${content}
							onInput=${(event: Event) => setContent((event.target as HTMLInputElement).value)} /></label>`
					: html`<label for="add-file">File (PDF, Office, HTML, text, CSV, images)
						<input id="add-file" type="file" required
							onChange=${(event: Event) => setFile((event.target as HTMLInputElement).files?.[0] ?? null)} /></label>`
		}
		<label for="add-tag">Container tag (optional)
			<input id="add-tag" value=${tag} placeholder="user_1"
				onInput=${(event: Event) => setTag((event.target as HTMLInputElement).value)} /></label>
		<${ErrorBox} error=${error} />
		${added ? html`<p class="ok" role="status">Queued: <a href=${href('documents', added)}>${added}</a></p>` : null}
		<button type="submit" disabled=${busy}>${busy ? 'Adding…' : 'Add document'}</button>
	</form>`
}
