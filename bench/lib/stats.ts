/** Latency summaries. Percentiles use the nearest-rank method on the sorted sample. */

export interface Summary {
	count: number
	mean: number
	p50: number
	p95: number
	p99: number
	max: number
}

export function percentile(sorted: number[], fraction: number): number {
	if (sorted.length === 0) return Number.NaN
	const rank = Math.ceil(fraction * sorted.length)
	return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!
}

export function summarize(values: number[]): Summary {
	const sorted = [...values].sort((a, b) => a - b)
	const sum = sorted.reduce((total, value) => total + value, 0)
	return {
		count: sorted.length,
		mean: sorted.length ? sum / sorted.length : Number.NaN,
		p50: percentile(sorted, 0.5),
		p95: percentile(sorted, 0.95),
		p99: percentile(sorted, 0.99),
		max: sorted.at(-1) ?? Number.NaN,
	}
}

export function median(values: number[]): number {
	return percentile(
		[...values].sort((a, b) => a - b),
		0.5,
	)
}
