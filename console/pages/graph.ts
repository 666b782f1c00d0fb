import { useMemo, useState } from 'preact/hooks'
import { ContainerSelect } from '../components/containers-select.ts'
import { ErrorBox, Loading, StatusBadge } from '../components/ui.ts'
import { api } from '../lib/api.ts'
import { html } from '../lib/html.ts'
import { go, href } from '../lib/router.ts'
import { useLoad } from '../lib/use-load.ts'
import { EDGE_COLORS, GraphCanvas } from './graph-canvas.ts'
import { buildGraph, type DocumentIn, type GraphNode, type MemoryIn } from './graph-data.ts'
import type { PageProps } from './index.ts'

const LIMIT = 1100
/** Enough for a container of a few thousand memories; the canvas stays smooth well beyond it. */
const MAX_MEMORY_PAGES = 3

async function loadMemories(tags: string[]): Promise<MemoryIn[]> {
	const memories: MemoryIn[] = []
	for (let page = 1; page <= MAX_MEMORY_PAGES; page++) {
		const answer = await api.post<{ memoryEntries: MemoryIn[] }>('/v4/memories/list', {
			containerTags: tags,
			limit: LIMIT,
			page,
		})
		memories.push(...answer.memoryEntries)
		if (answer.memoryEntries.length < LIMIT) break
	}
	return memories
}

async function loadGraph(tag: string) {
	const tags = tag
		? [tag]
		: (await api.get<{ containerTag: string }[]>('/v3/container-tags/list')).map((t) => t.containerTag)
	if (tags.length === 0) return buildGraph([], [])
	const [documents, memories] = await Promise.all([
		api.post<{ memories: DocumentIn[] }>('/v3/documents/list', { containerTags: tags.slice(0, 100), limit: LIMIT }),
		loadMemories(tags.slice(0, 100)),
	])
	return buildGraph(documents.memories, memories)
}

export function GraphPage({ route }: PageProps) {
	const tag = route[0] ?? ''
	const { data, error } = useLoad(() => loadGraph(tag), [tag])
	const [selected, setSelected] = useState<GraphNode | null>(null)
	const counts = useMemo(() => {
		const documents = data?.nodes.filter((node) => node.kind === 'document').length ?? 0
		return { documents, memories: (data?.nodes.length ?? 0) - documents }
	}, [data])
	return html`<section aria-labelledby="graph-title" class="graph-page">
		<h1 id="graph-title">Memory graph</h1>
		<div class="filters">
			<${ContainerSelect} id="graph-tag" value=${tag} onChange=${(value: string) => (value ? go('graph', value) : go('graph'))} />
			<p class="legend" aria-label="Legend">
				<span><i class="swatch document"></i>document</span>
				<span><i class="swatch memory"></i>memory (paler: older version)</span>
				${Object.entries(EDGE_COLORS).map(([kind, color]) => html`<span><i class="line" style=${`background:${color}`}></i>${kind}</span>`)}
			</p>
		</div>
		<${ErrorBox} error=${error} />
		${
			data
				? html`<p class="muted" aria-live="polite">${counts.documents} documents, ${counts.memories} memories, ${data.edges.length} edges</p>
				<div class="graph-layout">
					<${GraphCanvas} nodes=${data.nodes} edges=${data.edges} selected=${selected} onSelect=${setSelected} />
					<aside class="card inspector" aria-live="polite" aria-label="Selected node">
						${selected ? html`<${Inspector} node=${selected} edges=${data.edges} />` : html`<p class="muted">Click a node (or focus the graph and press Enter) to inspect it.</p>`}
					</aside>
				</div>`
				: error
					? null
					: html`<${Loading} what="Loading the graph" />`
		}
	</section>`
}

function Inspector({ node, edges }: { node: GraphNode; edges: ReturnType<typeof buildGraph>['edges'] }) {
	const related = edges.filter((edge) => (edge.source as GraphNode) === node || (edge.target as GraphNode) === node)
	return html`<div class="inspected">
		<h2>${node.kind === 'document' ? 'Document' : `Memory${node.version ? ` v${node.version}` : ''}`}</h2>
		${node.kind === 'document' ? html`<p><${StatusBadge} status=${node.status ?? ''} /></p>` : null}
		<p class="inspected-label">${node.label}</p>
		<p class="muted">${node.containerTag}${node.kind === 'memory' ? ` · ${node.latest ? 'latest' : 'older version'}${node.forgotten ? ' · forgotten' : ''}` : ''}</p>
		${node.kind === 'document' ? html`<p><a href=${href('documents', node.id)}>Open document</a></p>` : null}
		<h3>Edges (${related.length})</h3>
		<ul>${related.slice(0, 20).map((edge) => {
			const other = (edge.source as GraphNode) === node ? (edge.target as GraphNode) : (edge.source as GraphNode)
			const outgoing = (edge.source as GraphNode) === node
			return html`<li>${outgoing ? edge.kind : `${edge.kind} (from)`}: ${other.label.slice(0, 80)}</li>`
		})}</ul>
	</div>`
}
