import { useState } from 'preact/hooks'
import { html } from '../lib/html.ts'

export function ErrorBox({ error }: { error: string | null | undefined }) {
	if (!error) return null
	return html`<p class="error" role="alert">${error}</p>`
}

export function Loading({ what = 'Loading' }: { what?: string }) {
	return html`<p class="muted" aria-live="polite">${what}…</p>`
}

export function StatusBadge({ status }: { status: string }) {
	return html`<span class=${`badge status-${status}`}>${status}</span>`
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
	const [copied, setCopied] = useState(false)
	const copy = async () => {
		try {
			await navigator.clipboard.writeText(text)
		} catch {
			// Clipboard access needs a secure context; select the text for a manual copy instead.
			const range = document.createRange()
			const target = document.activeElement?.parentElement?.querySelector('pre, code, output')
			if (target) {
				range.selectNodeContents(target)
				getSelection()?.removeAllRanges()
				getSelection()?.addRange(range)
			}
		}
		setCopied(true)
		setTimeout(() => setCopied(false), 1500)
	}
	return html`<button type="button" class="small" onClick=${copy}>${copied ? 'Copied' : label}</button>`
}

export function CodeBlock({ code, label }: { code: string; label: string }) {
	return html`<figure class="code">
		<figcaption>${label} <${CopyButton} text=${code} label=${`Copy ${label}`} /></figcaption>
		<pre tabindex="0">${code}</pre>
	</figure>`
}

export function Stat({ label, value, hint }: { label: string; value: string; hint?: string }) {
	return html`<div class="stat">
		<div class="stat-value">${value}</div>
		<div class="stat-label">${label}</div>
		${hint ? html`<div class="muted small-text">${hint}</div>` : null}
	</div>`
}
