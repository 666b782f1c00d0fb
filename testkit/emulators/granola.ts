import { type FaultLayer, faultLayer } from './faults.ts'

/**
 * A local Granola public API (`/v1/notes`, `/v1/notes/{id}?include=transcript`) on 127.0.0.1, with notes held in
 * memory: listing by `updated_after` with cursor pagination, a bad key answered 401, and rate limiting (429 with
 * Retry-After) on demand. Every request is recorded with the time it arrived.
 */

export interface EmulatedNote {
	id: string
	title: string
	owner: { name: string; email: string }
	created_at: string
	updated_at: string
	attendees: { name: string; email: string }[]
	calendar_event: { scheduled_start_time: string } | null
	summary_markdown: string
	summary_text: string
	web_url: string
	transcript: {
		speaker: { source: 'microphone' | 'speaker'; diarization_label?: string }
		text: string
		/** get-note's example names them `start_time` and `end_time`. */
		start_time: string
		end_time: string
	}[]
}

export interface GranolaRequest {
	path: string
	query: URLSearchParams
	authorization: string | null
	at: number
	status: number
}

export interface GranolaEmulator {
	/** The shared fault layer (testkit/emulators/faults.ts). */
	faults: FaultLayer
	url: string
	apiKey: string
	notes: Map<string, EmulatedNote>
	requests: GranolaRequest[]
	/** Adds or replaces a note; its `updated_at` is the emulator clock (one second later at each change). */
	put(note: Partial<EmulatedNote> & { id: string; title: string }): EmulatedNote
	remove(id: string): void
	/** The note's detail answers 500 from now on. */
	breakNote(id: string): void
	/** The note's detail answers again. */
	mendNote(id: string): void
	/**
	 * The note is (re)processing: left out of the listing, its detail 404 ("Only notes with a completed AI summary and
	 * transcript are returned": list-notes; get-note documents 404), until `processing(id, false)`.
	 */
	processing(id: string, on: boolean): void
	/** Called once each request is answered, with its path: to change notes in the middle of a sync. */
	afterRequest: ((path: string) => void) | null
	/** The next `count` requests answer 429 with `Retry-After: seconds`. */
	rateLimitNext(count: number, retryAfterSeconds: number): void
	stop(): void
}

const PAGE_SIZE_MAX = 30

export function startGranolaEmulator(options: { apiKey?: string } = {}): GranolaEmulator {
	const apiKey = options.apiKey ?? 'grn_emulator_key'
	const notes = new Map<string, EmulatedNote>()
	const requests: GranolaRequest[] = []
	// Granola's clock: now, moving on at least a second at each change.
	let clock = Date.now() - 3_600_000
	let limited = { count: 0, retryAfter: 0 }
	const broken = new Set<string>()
	const inProcess = new Set<string>()

	const answer = (request: GranolaRequest, status: number, body: unknown, headers: Record<string, string> = {}) => {
		request.status = status
		return Response.json(body, { status, headers })
	}

	const faults = faultLayer('granola')
	const server = Bun.serve({
		hostname: '127.0.0.1',
		port: 0,
		async fetch(raw) {
			const fault = await faults.before(raw)
			if (fault) return fault
			try {
				return route(raw)
			} finally {
				emulator.afterRequest?.(new URL(raw.url).pathname)
			}
		},
	})

	function route(raw: Request): Response {
		const url = new URL(raw.url)
		const request: GranolaRequest = {
			path: url.pathname,
			query: url.searchParams,
			authorization: raw.headers.get('authorization'),
			at: Date.now(),
			status: 0,
		}
		requests.push(request)
		if (request.authorization !== `Bearer ${apiKey}`) {
			return answer(request, 401, { error: 'Unauthorized', message: 'Invalid API key' })
		}
		if (limited.count > 0) {
			limited.count--
			return answer(request, 429, { error: 'Too Many Requests' }, { 'retry-after': String(limited.retryAfter) })
		}
		if (url.pathname === '/v1/notes') return answer(request, 200, list(url.searchParams))
		const detail = /^\/v1\/notes\/([^/]+)$/.exec(url.pathname)
		if (detail) {
			const id = decodeURIComponent(detail[1]!)
			if (broken.has(id)) return answer(request, 500, { error: 'Internal Server Error' })
			const note = notes.get(id)
			if (!note || inProcess.has(id)) return answer(request, 404, { error: 'Not Found' })
			const withTranscript = url.searchParams.get('include') === 'transcript'
			return answer(request, 200, withTranscript ? note : { ...note, transcript: null })
		}
		return answer(request, 404, { error: 'Not Found' })
	}

	function list(query: URLSearchParams) {
		const pageSize = Math.min(Number(query.get('page_size') ?? 10), PAGE_SIZE_MAX)
		const after = query.get('updated_after')
		const matching = [...notes.values()]
			.filter((note) => !inProcess.has(note.id) && (!after || Date.parse(note.updated_at) > Date.parse(after)))
			.sort((a, b) => a.id.localeCompare(b.id))
		const start = Number(query.get('cursor') ?? 0)
		const page = matching.slice(start, start + pageSize)
		const hasMore = start + pageSize < matching.length
		return {
			notes: page.map(({ id, title, owner, created_at, updated_at }) => ({ id, title, owner, created_at, updated_at })),
			hasMore,
			cursor: hasMore ? String(start + pageSize) : null,
		}
	}

	const emulator: GranolaEmulator = {
		faults,
		url: `http://127.0.0.1:${server.port}`,
		apiKey,
		notes,
		requests,
		afterRequest: null,
		put(input) {
			clock = Math.max(clock + 1000, Date.now())
			const now = new Date(clock).toISOString()
			const note: EmulatedNote = {
				owner: { name: 'Ann Lee', email: 'ann@example.com' },
				created_at: notes.get(input.id)?.created_at ?? now,
				attendees: [],
				calendar_event: null,
				summary_markdown: '',
				summary_text: '',
				web_url: `https://notes.granola.ai/d/${input.id}`,
				transcript: [],
				...input,
				updated_at: now,
			}
			notes.set(note.id, note)
			return note
		},
		remove(id) {
			notes.delete(id)
		},
		breakNote(id) {
			broken.add(id)
		},
		mendNote(id) {
			broken.delete(id)
		},
		processing(id, on) {
			if (on) inProcess.add(id)
			else inProcess.delete(id)
		},
		rateLimitNext(count, retryAfterSeconds) {
			limited = { count, retryAfter: retryAfterSeconds }
		},
		stop() {
			server.stop(true)
		},
	}
	return emulator
}
