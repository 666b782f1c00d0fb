import { forceCenter, forceLink, forceManyBody, forceSimulation, forceX, forceY } from 'd3-force'
import { useEffect, useRef } from 'preact/hooks'
import { html } from '../lib/html.ts'
import type { EdgeKind, GraphEdge, GraphNode } from './graph-data.ts'

export const EDGE_COLORS: Record<EdgeKind, string> = { derives: '#8a94a6', updates: '#d9822b', extends: '#2b8a3e' }
const DOCUMENT_COLOR = '#3b5bdb'
const MEMORY_COLOR = '#0c8599'
const SIZE = 6

interface View {
	x: number
	y: number
	k: number
}

function hexagon(ctx: CanvasRenderingContext2D, x: number, y: number, r: number) {
	ctx.beginPath()
	for (let i = 0; i < 6; i++) {
		const angle = (Math.PI / 3) * i + Math.PI / 6
		ctx.lineTo(x + r * Math.cos(angle), y + r * Math.sin(angle))
	}
	ctx.closePath()
}

/**
 * Canvas 2D drawing of a d3-force layout: documents as squares, memories as hexagons (older versions paler),
 * edges coloured by relation. Drag or arrow keys pan, the wheel or +/- zoom, a click or Enter selects.
 */
export function GraphCanvas({
	nodes,
	edges,
	selected,
	onSelect,
}: {
	nodes: GraphNode[]
	edges: GraphEdge[]
	selected: GraphNode | null
	onSelect: (node: GraphNode | null) => void
}) {
	const canvasRef = useRef<HTMLCanvasElement>(null)
	const view = useRef<View>({ x: 0, y: 0, k: 1 })
	const selectedRef = useRef<GraphNode | null>(selected)
	const drawRef = useRef<() => void>(() => {})
	selectedRef.current = selected

	useEffect(() => {
		const canvas = canvasRef.current!
		const ctx = canvas.getContext('2d')!
		let frame = 0
		const resize = () => {
			const ratio = devicePixelRatio || 1
			canvas.width = canvas.clientWidth * ratio
			canvas.height = canvas.clientHeight * ratio
			draw()
		}
		const draw = () => {
			if (frame) return
			frame = requestAnimationFrame(() => {
				frame = 0
				const ratio = devicePixelRatio || 1
				const { x, y, k } = view.current
				ctx.setTransform(1, 0, 0, 1, 0, 0)
				ctx.clearRect(0, 0, canvas.width, canvas.height)
				ctx.setTransform(
					ratio * k,
					0,
					0,
					ratio * k,
					ratio * (canvas.clientWidth / 2 + x),
					ratio * (canvas.clientHeight / 2 + y),
				)
				ctx.lineWidth = 1 / k
				for (const kind of Object.keys(EDGE_COLORS) as EdgeKind[]) {
					ctx.strokeStyle = EDGE_COLORS[kind]
					ctx.beginPath()
					for (const edge of edges) {
						if (edge.kind !== kind) continue
						const s = edge.source as GraphNode
						const t = edge.target as GraphNode
						ctx.moveTo(s.x!, s.y!)
						ctx.lineTo(t.x!, t.y!)
					}
					ctx.stroke()
				}
				for (const node of nodes) {
					ctx.globalAlpha = node.latest && !node.forgotten ? 1 : 0.4
					ctx.fillStyle = node.kind === 'document' ? DOCUMENT_COLOR : MEMORY_COLOR
					if (node.kind === 'document') {
						ctx.fillRect(node.x! - SIZE, node.y! - SIZE, SIZE * 2, SIZE * 2)
					} else {
						hexagon(ctx, node.x!, node.y!, SIZE)
						ctx.fill()
					}
				}
				ctx.globalAlpha = 1
				const chosen = selectedRef.current
				if (chosen) {
					ctx.strokeStyle = '#e03131'
					ctx.lineWidth = 3 / k
					ctx.beginPath()
					ctx.arc(chosen.x!, chosen.y!, SIZE * 1.8, 0, Math.PI * 2)
					ctx.stroke()
				}
			})
		}
		drawRef.current = draw

		const layoutStarted = performance.now()
		const simulation = forceSimulation(nodes)
			.force(
				'link',
				forceLink<GraphNode, GraphEdge>(edges)
					.id((node) => node.id)
					.distance(30),
			)
			.force('charge', forceManyBody().strength(-40).theta(0.9).distanceMax(400))
			.force('x', forceX().strength(0.03))
			.force('y', forceY().strength(0.03))
			.force('center', forceCenter())
			.alphaDecay(0.04)
			.on('tick', draw)
			.on('end', () => {
				canvas.setAttribute('data-settled', 'true')
				canvas.setAttribute('data-layout-ms', String(Math.round(performance.now() - layoutStarted)))
			})
		canvas.removeAttribute('data-settled')

		const toGraph = (clientX: number, clientY: number) => {
			const rect = canvas.getBoundingClientRect()
			const { x, y, k } = view.current
			return { gx: (clientX - rect.left - rect.width / 2 - x) / k, gy: (clientY - rect.top - rect.height / 2 - y) / k }
		}
		const nearest = (gx: number, gy: number, radius: number) => {
			let best: GraphNode | null = null
			let bestDistance = radius * radius
			for (const node of nodes) {
				const distance = (node.x! - gx) ** 2 + (node.y! - gy) ** 2
				if (distance <= bestDistance) {
					best = node
					bestDistance = distance
				}
			}
			return best
		}
		let drag: { x: number; y: number; moved: boolean } | null = null
		const down = (event: PointerEvent) => {
			drag = { x: event.clientX, y: event.clientY, moved: false }
			canvas.setPointerCapture(event.pointerId)
		}
		const move = (event: PointerEvent) => {
			if (!drag) return
			const dx = event.clientX - drag.x
			const dy = event.clientY - drag.y
			if (Math.abs(dx) + Math.abs(dy) > 2) drag.moved = true
			view.current.x += dx
			view.current.y += dy
			drag.x = event.clientX
			drag.y = event.clientY
			draw()
		}
		const up = (event: PointerEvent) => {
			if (drag && !drag.moved) {
				const { gx, gy } = toGraph(event.clientX, event.clientY)
				onSelect(nearest(gx, gy, (SIZE * 2) / Math.min(1, view.current.k)))
			}
			drag = null
		}
		const zoom = (factor: number) => {
			view.current.k = Math.min(8, Math.max(0.05, view.current.k * factor))
			draw()
		}
		const wheel = (event: WheelEvent) => {
			event.preventDefault()
			zoom(event.deltaY < 0 ? 1.15 : 1 / 1.15)
		}
		const key = (event: KeyboardEvent) => {
			const step = 40
			const actions: Record<string, () => void> = {
				ArrowLeft: () => (view.current.x += step),
				ArrowRight: () => (view.current.x -= step),
				ArrowUp: () => (view.current.y += step),
				ArrowDown: () => (view.current.y -= step),
				'+': () => zoom(1.25),
				'=': () => zoom(1.25),
				'-': () => zoom(0.8),
				'0': () => (view.current = { x: 0, y: 0, k: 1 }),
				Enter: () => {
					const { x, y, k } = view.current
					onSelect(nearest(-x / k, -y / k, 200 / k))
				},
				Escape: () => onSelect(null),
			}
			const action = actions[event.key]
			if (!action) return
			event.preventDefault()
			action()
			draw()
		}
		canvas.addEventListener('pointerdown', down)
		canvas.addEventListener('pointermove', move)
		canvas.addEventListener('pointerup', up)
		canvas.addEventListener('wheel', wheel, { passive: false })
		canvas.addEventListener('keydown', key)
		const observer = new ResizeObserver(resize)
		observer.observe(canvas)
		// Start zoomed out for large graphs.
		view.current = { x: 0, y: 0, k: nodes.length > 500 ? 0.35 : nodes.length > 100 ? 0.7 : 1 }
		resize()
		return () => {
			simulation.stop()
			observer.disconnect()
			cancelAnimationFrame(frame)
			canvas.removeEventListener('pointerdown', down)
			canvas.removeEventListener('pointermove', move)
			canvas.removeEventListener('pointerup', up)
			canvas.removeEventListener('wheel', wheel)
			canvas.removeEventListener('keydown', key)
		}
	}, [nodes, edges])

	useEffect(() => drawRef.current(), [selected])

	return html`<canvas ref=${canvasRef} class="graph" tabindex="0" data-nodes=${nodes.length} data-edges=${edges.length}
		role="img" aria-label=${`Memory graph with ${nodes.length} nodes and ${edges.length} edges. Arrow keys pan, plus and minus zoom, Enter selects the node nearest the centre, Escape clears.`}></canvas>`
}
