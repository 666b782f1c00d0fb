import { useEffect, useRef, useState } from 'preact/hooks'
import uPlot from 'uplot'
import { ErrorBox, Loading } from '../components/ui.ts'
import { api, apiPath } from '../lib/api.ts'
import { count } from '../lib/format.ts'
import { html } from '../lib/html.ts'
import { useLoad } from '../lib/use-load.ts'
import type { PageProps } from './index.ts'

interface UsageReport {
	since: string
	totals: Record<string, number>
	daily: { metric: string; day: string; amount: number }[]
	quotas: { metric: string; period: string; max: number }[]
}

const METRICS = ['documents', 'characters', 'searches', 'profiles']
const COLORS: Record<string, string> = {
	documents: '#3b5bdb',
	characters: '#0c8599',
	searches: '#d9822b',
	profiles: '#2b8a3e',
}

function daysSince(since: string): string[] {
	const days: string[] = []
	const today = new Date().toISOString().slice(0, 10)
	for (
		let day = new Date(`${since}T00:00:00Z`);
		day.toISOString().slice(0, 10) <= today;
		day.setUTCDate(day.getUTCDate() + 1)
	) {
		days.push(day.toISOString().slice(0, 10))
	}
	return days
}

function defaultSince(): string {
	const date = new Date()
	date.setUTCDate(date.getUTCDate() - 13)
	return date.toISOString().slice(0, 10)
}

/** One small line chart per metric (uPlot), per UTC day. */
function MetricChart({ metric, days, values }: { metric: string; days: string[]; values: number[] }) {
	const ref = useRef<HTMLDivElement>(null)
	useEffect(() => {
		const element = ref.current!
		const width = Math.max(260, Math.min(560, element.clientWidth || 560))
		const chart = new uPlot(
			{
				width,
				height: 180,
				legend: { show: false },
				scales: { x: { time: true } },
				series: [
					{},
					{ label: metric, stroke: COLORS[metric], width: 2, fill: `${COLORS[metric]}22`, points: { show: true } },
				],
				axes: [{}, { size: 60 }],
			},
			[days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000), values],
			element,
		)
		return () => chart.destroy()
	}, [metric, days, values])
	return html`<figure class="card chart">
		<figcaption><strong>${metric}</strong> · ${count(values.reduce((a, b) => a + b, 0))} in the period</figcaption>
		<div ref=${ref} role="img" aria-label=${`${metric} per day: ${values.join(', ')}`}></div>
	</figure>`
}

export function UsagePage(_: PageProps) {
	const [since, setSince] = useState(defaultSince)
	const { data, error } = useLoad(() => api.get<UsageReport>(apiPath`/v3/usage?since=${since}`), [since])
	const days = data ? daysSince(data.since) : []
	const series = (metric: string) =>
		days.map((day) => data?.daily.find((row) => row.metric === metric && row.day === day)?.amount ?? 0)
	return html`<section aria-labelledby="usage-title">
		<h1 id="usage-title">Usage</h1>
		<div class="filters">
			<label for="usage-since">Since (UTC day)
				<input id="usage-since" type="date" value=${since} max=${new Date().toISOString().slice(0, 10)}
					onChange=${(event: Event) => setSince((event.target as HTMLInputElement).value || defaultSince())} /></label>
		</div>
		<${ErrorBox} error=${error} />
		${
			data
				? html`<div class="charts">${METRICS.map((metric) => html`<${MetricChart} metric=${metric} days=${days} values=${series(metric)} />`)}</div>
				<h2>Per day</h2>
				<div class="table-wrap"><table>
					<thead><tr><th scope="col">Day</th>${METRICS.map((metric) => html`<th scope="col">${metric}</th>`)}</tr></thead>
					<tbody>${[...days].reverse().map((day) => html`<tr><td>${day}</td>${METRICS.map((metric) => html`<td>${count(data.daily.find((row) => row.metric === metric && row.day === day)?.amount ?? 0)}</td>`)}</tr>`)}</tbody>
				</table></div>
				<h2>Quotas</h2>
				${
					data.quotas.length
						? html`<ul>${data.quotas.map((quota) => html`<li>${quota.metric}: at most ${count(quota.max)} per ${quota.period}</li>`)}</ul>`
						: html`<p class="muted">No quotas. Set them with <code>bun run usage quota --org NAME --metric searches --period month --max 10000</code>.</p>`
				}`
				: error
					? null
					: html`<${Loading} />`
		}
	</section>`
}
