import { api } from '../lib/api.ts'
import { html } from '../lib/html.ts'
import { useLoad } from '../lib/use-load.ts'

export interface ContainerTagSummary {
	containerTag: string
	documentCount: number
	memoryCount: number
	lastActivityAt: string | null
}

export function useContainerTags() {
	return useLoad(() => api.get<ContainerTagSummary[]>('/v3/container-tags/list'), [])
}

/** A labelled select of the organization's container tags (what the key may see). */
export function ContainerSelect({
	id,
	label = 'Container tag',
	value,
	onChange,
	allowAll = true,
}: {
	id: string
	label?: string
	value: string
	onChange: (tag: string) => void
	allowAll?: boolean
}) {
	const { data } = useContainerTags()
	return html`<label for=${id}>${label}
		<select id=${id} value=${value} onChange=${(event: Event) => onChange((event.target as HTMLSelectElement).value)}>
			${allowAll ? html`<option value="">All container tags</option>` : null}
			${(data ?? []).map((tag) => html`<option value=${tag.containerTag}>${tag.containerTag}</option>`)}
		</select>
	</label>`
}
