import { ErrorBox, Loading, Stat } from '../components/ui.ts'
import { api, apiPath } from '../lib/api.ts'
import { count } from '../lib/format.ts'
import { html } from '../lib/html.ts'
import { href } from '../lib/router.ts'
import { useLoad } from '../lib/use-load.ts'
import type { PageProps } from './index.ts'

interface Overview {
	documents: number
	memories: number
	containerTags: number
	searchesToday: number | null
	backlog: number
}

async function loadOverview(unrestricted: boolean): Promise<Overview> {
	const today = new Date().toISOString().slice(0, 10)
	const [documents, tags, processing, usage] = await Promise.all([
		api.post('/v3/documents/list', { limit: 1 }),
		api.get<{ memoryCount: number }[]>('/v3/container-tags/list'),
		api.get('/v3/documents/processing'),
		unrestricted ? api.get(apiPath`/v3/usage?since=${today}`) : Promise.resolve(null),
	])
	return {
		documents: documents.totalCount,
		memories: tags.reduce((sum, tag) => sum + tag.memoryCount, 0),
		containerTags: tags.length,
		searchesToday: usage ? (usage.totals.searches ?? 0) : null,
		backlog: processing.totalCount,
	}
}

export function OverviewPage({ principal }: PageProps) {
	const unrestricted = principal.containerTags === null
	const { data, error } = useLoad(() => loadOverview(unrestricted), [unrestricted], {
		every: 3000,
		live: () => true,
	})
	return html`<section aria-labelledby="overview-title">
		<h1 id="overview-title">Overview</h1>
		<${ErrorBox} error=${error} />
		${
			data
				? html`<div class="stats">
					<${Stat} label="Documents" value=${count(data.documents)} />
					<${Stat} label="Memories" value=${count(data.memories)} hint=${`in ${count(data.containerTags)} container tags`} />
					<${Stat} label="Searches today" value=${count(data.searchesToday)}
						hint=${data.searchesToday === null ? 'needs an unrestricted key' : 'UTC day'} />
					<${Stat} label="Processing backlog" value=${count(data.backlog)} hint="documents not yet done or failed" />
				</div>
				<p class="links"><a href=${href('documents')}>Add a document</a><a href=${href('playground')}>Try a search</a><a
					href=${href('graph')}>Open the memory graph</a></p>`
				: error
					? null
					: html`<${Loading} />`
		}
	</section>`
}
