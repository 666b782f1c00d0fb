/** The bench's HTTP client. It only ever talks to a server on this machine. */

const LOOPBACK = new Set(['localhost', '[::1]', '::1'])

export function assertLoopback(url: string): void {
	const { hostname } = new URL(url)
	if (!(LOOPBACK.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname))) {
		throw new Error(`benches send traffic to this machine only (127.0.0.0/8, localhost, ::1), not to ${hostname}`)
	}
}

export interface Reply<T = any> {
	status: number
	body: T
	/** Client-side latency: from sending the request to having read the whole body. */
	ms: number
	/** The server's own time for the request, from its Server-Timing header. */
	serverMs?: number
}

export class BenchClient {
	constructor(
		readonly baseUrl: string,
		readonly key: string,
	) {
		assertLoopback(baseUrl)
	}

	async request<T = any>(method: string, path: string, body?: unknown): Promise<Reply<T>> {
		const payload = body === undefined ? undefined : JSON.stringify(body)
		const started = performance.now()
		const response = await fetch(`${this.baseUrl}${path}`, {
			method,
			headers: {
				authorization: `Bearer ${this.key}`,
				...(payload === undefined ? {} : { 'content-type': 'application/json' }),
			},
			body: payload,
		})
		const text = await response.text()
		const ms = performance.now() - started
		const serverMs = Number(/dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '')?.[1] ?? Number.NaN)
		return {
			status: response.status,
			body: text ? JSON.parse(text) : null,
			ms,
			...(Number.isFinite(serverMs) ? { serverMs } : {}),
		}
	}

	post<T = any>(path: string, body: unknown): Promise<Reply<T>> {
		return this.request<T>('POST', path, body)
	}

	get<T = any>(path: string): Promise<Reply<T>> {
		return this.request<T>('GET', path)
	}

	/** Whether a route exists yet: anything but the router's 404 ("... is not a route") means it does. */
	async hasRoute(method: string, path: string, body: unknown = {}): Promise<boolean> {
		const reply = await this.request(method, path, body)
		return !(reply.status === 404 && String(reply.body?.details ?? '').includes('is not a route'))
	}
}
