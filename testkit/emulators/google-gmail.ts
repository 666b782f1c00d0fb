import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose'
import {
	apiError,
	type GoogleEmulator,
	json,
	type RateLimitKind,
	rateLimitError,
	startGoogleEmulator,
} from './google.ts'

/**
 * Gmail v1 on the Google emulator (`google.ts`): profile, labels, threads, raw messages, the mailbox history (404
 * for a start older than it keeps), watch and stop; and Pub/Sub push deliveries whose OIDC token is signed by keys
 * served at `/oauth2/v3/certs`. State is in memory; every change adds a history record, as Gmail's do.
 */

interface StoredMessage {
	id: string
	threadId: string
	labelIds: Set<string>
	raw: Buffer
	internalDate: number
}

type HistoryKind = 'messagesAdded' | 'messagesDeleted' | 'labelsAdded' | 'labelsRemoved'

interface HistoryRecord {
	id: number
	kind: HistoryKind
	message: { id: string; threadId: string }
	labelIds?: string[]
}

export interface GmailRouteOptions {
	/** Milliseconds each raw message read waits (to interrupt a sync in its middle). */
	messageDelayMs?: number
}

export interface MailInput {
	from?: string
	to?: string
	cc?: string
	subject?: string
	/** RFC 2822 date text, or a Date. */
	date?: string | Date
	text?: string
	html?: string
	/** The body's charset; its text is encoded in it (`iso-8859-1`, or any label for an unknown one). */
	charset?: string
	/** Body transfer encoding (default 8bit for UTF-8, quoted-printable otherwise). */
	encoding?: 'quoted-printable' | 'base64' | '8bit'
	attachments?: { name: string; mimeType: string; bytes: Uint8Array | string }[]
}

const SYSTEM_LABELS = ['INBOX', 'SENT', 'STARRED', 'IMPORTANT', 'TRASH', 'SPAM', 'DRAFT', 'UNREAD']

/** Gmail's scopes that may read messages whole (`gmail.metadata` may not ask for `format=raw`). */
const GMAIL_READ_SCOPES = [
	'https://mail.google.com/',
	'https://www.googleapis.com/auth/gmail.modify',
	'https://www.googleapis.com/auth/gmail.readonly',
]

/** A mailbox's watch: Gmail keeps one per mailbox and Cloud project; `users.watch` sets it up "or updates" it. */
export interface Watch {
	topicName: string
	labelIds: string[]
	projectId: string
}

function quotedPrintable(bytes: Buffer): string {
	let line = ''
	const lines: string[] = []
	for (const byte of bytes) {
		if (byte === 0x0a) {
			lines.push(line)
			line = ''
			continue
		}
		const char =
			(byte >= 33 && byte <= 126 && byte !== 61) || byte === 32
				? String.fromCharCode(byte)
				: `=${byte.toString(16).toUpperCase().padStart(2, '0')}`
		if (line.length + char.length > 75) {
			lines.push(`${line}=`)
			line = ''
		}
		line += char
	}
	lines.push(line)
	return lines.join('\r\n')
}

function encodeText(text: string, charset: string): Buffer {
	if (/^utf-?8$/i.test(charset)) return Buffer.from(text, 'utf8')
	// Latin-1 for iso-8859-1 (and for labels no decoder knows: the bytes must still be 8-bit).
	return Buffer.from(text, 'latin1')
}

function bodyPart(type: string, text: string, input: MailInput): string {
	const charset = input.charset ?? 'utf-8'
	const bytes = encodeText(text, charset)
	const encoding = input.encoding ?? (/^utf-?8$/i.test(charset) ? '8bit' : 'quoted-printable')
	const body =
		encoding === 'quoted-printable'
			? quotedPrintable(bytes)
			: encoding === 'base64'
				? (bytes.toString('base64').match(/.{1,76}/g) ?? []).join('\r\n')
				: bytes.toString('latin1')
	return `Content-Type: ${type}; charset=${charset}\r\nContent-Transfer-Encoding: ${encoding}\r\n\r\n${body}`
}

/** An RFC 5322 message (as Gmail's `format=raw` carries it), bytes as latin1 text. */
export function buildMessage(input: MailInput): string {
	const date = input.date instanceof Date ? input.date.toUTCString() : (input.date ?? new Date().toUTCString())
	const headers = [
		`From: ${input.from ?? 'Anna Example <anna@example.com>'}`,
		`To: ${input.to ?? 'Bob Example <bob@example.com>'}`,
		...(input.cc ? [`Cc: ${input.cc}`] : []),
		`Subject: ${input.subject ?? 'Hello'}`,
		`Date: ${date}`,
		`Message-ID: <${crypto.randomUUID()}@example.com>`,
		'MIME-Version: 1.0',
	]
	const bodies: string[] = []
	if (input.text !== undefined) bodies.push(bodyPart('text/plain', input.text, input))
	if (input.html !== undefined) bodies.push(bodyPart('text/html', input.html, input))
	let body = bodies.length === 1 ? bodies[0]! : ''
	if (bodies.length > 1) {
		body = `Content-Type: multipart/alternative; boundary="alt"\r\n\r\n${bodies.map((part) => `--alt\r\n${part}`).join('\r\n')}\r\n--alt--`
	}
	if (bodies.length === 0) body = bodyPart('text/plain', '', input)
	if (input.attachments?.length) {
		const files = input.attachments.map((file) => {
			const bytes = typeof file.bytes === 'string' ? Buffer.from(file.bytes) : Buffer.from(file.bytes)
			return `Content-Type: ${file.mimeType}; name="${file.name}"\r\nContent-Disposition: attachment; filename="${file.name}"\r\nContent-Transfer-Encoding: base64\r\n\r\n${(bytes.toString('base64').match(/.{1,76}/g) ?? []).join('\r\n')}`
		})
		body = `Content-Type: multipart/mixed; boundary="mixed"\r\n\r\n${[body, ...files].map((part) => `--mixed\r\n${part}`).join('\r\n')}\r\n--mixed--`
	}
	return `${headers.join('\r\n')}\r\n${body}\r\n`
}

export async function addGmailRoutes(google: GoogleEmulator, options: GmailRouteOptions = {}) {
	const emailAddress = google.email
	const messages = new Map<string, StoredMessage>()
	const history: HistoryRecord[] = []
	const userLabels = new Map<string, string>()
	const log: string[] = []
	/** Every `users.watch` call, in order. */
	const watches: { topicName: string; labelIds: string[] }[] = []
	/** The mailbox's live watches, by the Cloud project that made them. */
	const activeWatches = new Map<string, Watch>()
	/** Listing page tokens carry the generation they were issued in; an older generation is refused. */
	let pageTokenGeneration = 1
	const state = {
		/** The next this many calls are refused with Gmail's rate-limit answer. */
		rateLimitedCalls: 0,
		rateLimitKind: '429' as RateLimitKind,
	}
	let historyId = 1000
	let oldestHistoryId = 0
	let nextId = 1
	let revokeAfterReads: number | null = null
	let threadPageSize: number | null = null

	const signing = await generateKeyPair('RS256', { extractable: true })
	const forging = await generateKeyPair('RS256', { extractable: true })
	const publicJwk: JWK = { ...(await exportJWK(signing.publicKey)), kid: 'emulator-key', alg: 'RS256', use: 'sig' }
	const notFound = () => apiError(404, 'notFound', 'Requested entity was not found.')

	function record(kind: HistoryKind, message: StoredMessage, labelIds?: string[]) {
		historyId++
		history.push({ id: historyId, kind, message: { id: message.id, threadId: message.threadId }, labelIds })
	}

	const threadMessages = (threadId: string) =>
		[...messages.values()].filter((m) => m.threadId === threadId).sort((a, b) => a.internalDate - b.internalDate)

	function threadHistoryId(threadId: string): number {
		const ids = history.filter((h) => h.message.threadId === threadId).map((h) => h.id)
		return ids.length ? Math.max(...ids) : historyId
	}

	const minimal = (m: StoredMessage) => ({
		id: m.id,
		threadId: m.threadId,
		labelIds: [...m.labelIds],
		sizeEstimate: m.raw.length,
		internalDate: String(m.internalDate),
		historyId: String(threadHistoryId(m.threadId)),
	})

	const gmail = (method: string, path: string, handler: Parameters<GoogleEmulator['route']>[2]) =>
		google.route(
			method,
			new RegExp(`^/gmail/v1/users/me/${path}$`),
			(context) => {
				log.push(`${method} /${context.url.pathname.split('/').slice(5).join('/')}`)
				if (state.rateLimitedCalls > 0) {
					state.rateLimitedCalls--
					return rateLimitError(state.rateLimitKind)
				}
				return handler(context)
			},
			{ scopes: GMAIL_READ_SCOPES },
		)

	google.route('GET', /^\/oauth2\/v3\/certs$/, () => json({ keys: [publicJwk] }), { public: true })
	gmail('GET', 'profile', () =>
		json({
			emailAddress,
			historyId: String(historyId),
			messagesTotal: messages.size,
			threadsTotal: new Set([...messages.values()].map((m) => m.threadId)).size,
		}),
	)
	gmail('GET', 'labels', () =>
		json({
			labels: [
				...SYSTEM_LABELS.map((label) => ({ id: label, name: label, type: 'system' })),
				...[...userLabels].map(([labelId, name]) => ({ id: labelId, name, type: 'user' })),
			],
		}),
	)
	gmail('GET', 'threads', ({ url }) => {
		const wanted = url.searchParams.getAll('labelIds')
		const includeSpamTrash = url.searchParams.get('includeSpamTrash') === 'true'
		const threads = new Map<string, number>()
		for (const m of messages.values()) {
			if (!includeSpamTrash && (m.labelIds.has('TRASH') || m.labelIds.has('SPAM'))) continue
			if (!wanted.every((label) => m.labelIds.has(label))) continue
			threads.set(m.threadId, Math.max(threads.get(m.threadId) ?? 0, m.internalDate))
		}
		const ordered = [...threads].sort((a, b) => b[1] - a[1]).map(([threadId]) => threadId)
		const size = threadPageSize ?? Math.min(Number(url.searchParams.get('maxResults') ?? 100), 500)
		// Gmail documents no lifetime for a page token; a token from an older generation is refused as Drive's are.
		const token = url.searchParams.get('pageToken')
		const [generation, offset] = (token ?? `${pageTokenGeneration}:0`).split(':').map(Number)
		if (generation !== pageTokenGeneration || !Number.isInteger(offset)) {
			return apiError(400, 'invalidArgument', 'Invalid pageToken')
		}
		const start = offset!
		return json({
			threads: ordered.slice(start, start + size).map((threadId) => ({
				id: threadId,
				historyId: String(threadHistoryId(threadId)),
				snippet: '',
			})),
			...(start + size < ordered.length ? { nextPageToken: `${pageTokenGeneration}:${start + size}` } : {}),
			resultSizeEstimate: ordered.length,
		})
	})
	gmail('GET', 'threads/([^/]+)', ({ params }) => {
		const list = threadMessages(params[0]!)
		if (list.length === 0) return notFound()
		return json({ id: params[0], historyId: String(threadHistoryId(params[0]!)), messages: list.map(minimal) })
	})
	gmail('GET', 'messages/([^/]+)', async ({ params }) => {
		const m = messages.get(params[0]!)
		if (!m) return notFound()
		if (revokeAfterReads !== null && revokeAfterReads-- <= 0) {
			revokeAfterReads = null
			google.revokeAll()
			return apiError(401, 'authError', 'Request had invalid authentication credentials.')
		}
		if (options.messageDelayMs) await Bun.sleep(options.messageDelayMs)
		return json({ ...minimal(m), raw: m.raw.toString('base64url') })
	})
	gmail('GET', 'history', ({ url }) => {
		const start = Number(url.searchParams.get('startHistoryId'))
		if (!start || start < oldestHistoryId) return notFound()
		const records = history.filter((h) => h.id > start)
		const size = Math.min(Number(url.searchParams.get('maxResults') ?? 100), 500)
		const offset = Number(url.searchParams.get('pageToken') ?? 0)
		return json({
			history: records.slice(offset, offset + size).map((h) => ({
				id: String(h.id),
				messages: [h.message],
				[h.kind]: [{ message: h.message, ...(h.labelIds ? { labelIds: h.labelIds } : {}) }],
			})),
			historyId: String(historyId),
			...(offset + size < records.length ? { nextPageToken: String(offset + size) } : {}),
		})
	})
	/**
	 * users.watch: the topic "must exactly match your Google developer project id (the one executing this watch
	 * request)" (WatchRequest.topicName); a second call from the same project replaces the watch ("Set up or update a
	 * push notification watch on the given user mailbox", https://developers.google.com/gmail/api/reference/rest/v1/users/watch).
	 */
	gmail('POST', 'watch', async ({ request, projectId }) => {
		const body = (await request.json()) as { topicName: string; labelIds: string[] }
		watches.push({ topicName: body.topicName, labelIds: body.labelIds })
		if (!body.topicName?.startsWith(`projects/${projectId}/topics/`)) {
			return apiError(400, 'invalidArgument', `Invalid topicName does not match projects/${projectId}/topics/*`)
		}
		activeWatches.set(projectId, { topicName: body.topicName, labelIds: body.labelIds ?? [], projectId })
		return json({ historyId: String(historyId), expiration: String(Date.now() + 7 * 24 * 3_600_000) })
	})
	/** users.stop: "Stop receiving push notifications for the given user mailbox" (the calling project's watch). */
	gmail('POST', 'stop', ({ projectId }) => {
		activeWatches.delete(projectId)
		return new Response(null, { status: 204 })
	})

	return {
		emailAddress,
		log,
		watches,
		state,
		/** The mailbox's live watch of a Cloud project (default the emulator's own client's). */
		activeWatch: (projectId = 'demo-project') => activeWatches.get(projectId) ?? null,
		/** Every listing page token handed out so far stops working (Google refuses it with 400). */
		expirePageTokens() {
			pageTokenGeneration++
		},
		jwksUrl: `${google.url}/oauth2/v3/certs`,
		historyId: () => historyId,
		/** Creates a user label; returns its id. */
		addLabel(name: string): string {
			const id = `Label_${userLabels.size + 1}`
			userLabels.set(id, name)
			return id
		},
		/** Delivers a message (into `threadId`, else a new thread); returns its ids. */
		deliver(input: MailInput | { raw: string }, opts: { threadId?: string; labels?: string[]; at?: number } = {}) {
			const id = `m${(nextId++).toString(16).padStart(15, '0')}`
			const raw = 'raw' in input ? input.raw : buildMessage(input)
			const message: StoredMessage = {
				id,
				threadId: opts.threadId ?? `t${id.slice(1)}`,
				labelIds: new Set(opts.labels ?? ['INBOX', 'UNREAD']),
				raw: Buffer.from(raw, 'latin1'),
				internalDate: opts.at ?? Date.now() + nextId,
			}
			messages.set(id, message)
			record('messagesAdded', message)
			return { id, threadId: message.threadId }
		},
		/**
		 * A draft in a thread: a message carrying only the DRAFT system label ("Drafts represent unsent messages with
		 * the DRAFT system label applied", https://developers.google.com/gmail/api/guides/drafts).
		 */
		draft(input: MailInput, threadId: string) {
			return this.deliver(input, { threadId, labels: ['DRAFT'] })
		},
		/** A draft saved again: Gmail replaces its message, whose id changes on every save (the drafts guide). */
		saveDraft(messageId: string, input: MailInput) {
			const old = messages.get(messageId)!
			messages.delete(messageId)
			record('messagesDeleted', old)
			return this.deliver(input, { threadId: old.threadId, labels: ['DRAFT'] })
		},
		trash(messageId: string) {
			const m = messages.get(messageId)!
			m.labelIds.add('TRASH')
			m.labelIds.delete('INBOX')
			record('labelsAdded', m, ['TRASH'])
		},
		/** Deleted for good (not through trash). */
		remove(messageId: string) {
			const m = messages.get(messageId)!
			messages.delete(messageId)
			record('messagesDeleted', m)
		},
		relabel(messageId: string, add: string[], remove: string[] = []) {
			const m = messages.get(messageId)!
			for (const label of add) m.labelIds.add(label)
			for (const label of remove) m.labelIds.delete(label)
			if (add.length) record('labelsAdded', m, add)
			if (remove.length) record('labelsRemoved', m, remove)
		},
		/** Google forgets the history before now: an older startHistoryId gets 404. */
		expireHistory() {
			oldestHistoryId = historyId + 1
		},
		/** The grant is revoked after this many more raw message reads succeed. */
		revokeAfterMessageReads(reads: number) {
			revokeAfterReads = reads
		},
		/** Threads per page of `threads.list` (overrides the client's maxResults), to make listings page. */
		setThreadPageSize(size: number | null) {
			threadPageSize = size
		},
		rawReads: () => log.filter((line) => line.startsWith('GET /messages/')).length,
		/** A Pub/Sub push of a mailbox change, with its OIDC token, as the push subscription sends it. */
		async push(input: {
			audience: string
			emailAddress?: string
			expiresInSeconds?: number
			forged?: boolean
			issuer?: string
			serviceAccount?: string
			messageId?: string
		}) {
			const now = Math.floor(Date.now() / 1000)
			const lifetime = input.expiresInSeconds ?? 3600
			const jwt = await new SignJWT({
				email: input.serviceAccount ?? 'gmail-push@demo-project.iam.gserviceaccount.com',
				email_verified: true,
				azp: '1234567890',
			})
				.setProtectedHeader({ alg: 'RS256', kid: 'emulator-key', typ: 'JWT' })
				.setIssuer(input.issuer ?? 'https://accounts.google.com')
				.setAudience(input.audience)
				.setSubject('1234567890')
				.setIssuedAt(lifetime < 0 ? now + lifetime - 60 : now)
				.setExpirationTime(now + lifetime)
				.sign(input.forged ? forging.privateKey : signing.privateKey)
			const data = Buffer.from(
				JSON.stringify({ emailAddress: input.emailAddress ?? emailAddress, historyId }),
			).toString('base64')
			const messageId = input.messageId ?? String(Math.floor(Math.random() * 1e15))
			return {
				body: JSON.stringify({
					message: { data, messageId, message_id: messageId, publishTime: new Date().toISOString() },
					subscription: 'projects/demo-project/subscriptions/gmail-push',
				}),
				headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
			}
		},
	}
}

export type GmailRoutes = Awaited<ReturnType<typeof addGmailRoutes>>

/** A Google emulator with Gmail's routes, and an access token got through its consent and token endpoints. */
export async function startGmailEmulator(options: GmailRouteOptions & { tokenLifetimeSeconds?: number } = {}) {
	const google = startGoogleEmulator({ tokenLifetimeSeconds: options.tokenLifetimeSeconds })
	const mail = await addGmailRoutes(google, options)
	return {
		...mail,
		google,
		url: google.url,
		stop: google.stop,
		accessToken: () => google.accessToken('https://www.googleapis.com/auth/gmail.readonly'),
	}
}

export type GmailEmulator = Awaited<ReturnType<typeof startGmailEmulator>>
