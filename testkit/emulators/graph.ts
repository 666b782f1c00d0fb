import { createHash } from 'node:crypto'
import { faultLayer } from './faults.ts'
import { type IssuedCode, redeemCode } from './oauth-code.ts'

/**
 * A local Microsoft identity platform and Microsoft Graph: the authorization code flow (auto-consent, PKCE, refresh
 * tokens that rotate, invalid_grant once revoked), `/me`, the drive's root, children and items, the delta feed with
 * paging (absolute `@odata.nextLink`/`@odata.deltaLink`) and forced 410 resets, content downloads by a 302 to another
 * origin (as Graph's pre-authenticated download URLs), and change subscriptions that run the validationToken
 * handshake against the notification URL before delivering notifications. Real HTTP on 127.0.0.1.
 *
 * The failure forms are Graph's own, each from Microsoft's documentation:
 * - subscriptions on a drive need a read-write scope (subscription-post-subscriptions.md, permissions table:
 *   personal `Files.ReadWrite`, work or school `Files.ReadWrite.All`); with less, 403 `ExtensionError` "Access denied";
 * - a drive item subscription gets only `reauthorizationRequired` lifecycle events (change-notifications-lifecycle-
 *   events.md, "Supported resources": `subscriptionRemoved` and `missed` are for Outlook and Teams only); one Graph
 *   dropped answers 404 to its renewal;
 * - OneDrive for Business delta leaves `cTag` out of created and modified items (driveitem-delta.md, Remarks), and
 *   its `eTag` moves with metadata; `file.hashes.quickXorHash` is the hash both account kinds carry (hashes.md);
 * - pre-authenticated download URLs are valid "a few minutes" (driveitem-get-content.md): later they answer 401;
 * - throttling is 429 with `Retry-After`, and 503 or 504 (throttling guidance; the SDK's RetryHandler retries those).
 */

interface Item {
	id: string
	name: string
	parentId: string | null
	folder: boolean
	bytes: Uint8Array
	mimeType: string
	/** Position in the change feed: bumped by every change. */
	seq: number
	version: number
	contentVersion: number
	deleted: boolean
	created: number
	modified: string
}

interface Grant {
	expiresAt: number
	revoked: boolean
	user: string
	scopes: string[]
}

interface Drive {
	user: string
	items: Map<string, Item>
	seq: number
	created: number
	/** Delta tokens of an earlier epoch answer 410 Gone. */
	epoch: number
}

interface GraphSubscription {
	id: string
	notificationUrl: string
	lifecycleNotificationUrl: string | null
	clientState: string
	resource: string
	expirationDateTime: string
	user: string
}

export interface GraphEmulatorOptions {
	clientId?: string
	clientSecret?: string
	/** Seconds an access token lives (short ones make every use refresh). */
	tokenLifetimeSeconds?: number
	/** Items per delta page. */
	pageSize?: number
	/** Milliseconds each download waits (to interrupt a sync in its middle). */
	downloadDelayMs?: number
	/**
	 * `personal` (the default): delta items carry `cTag`; subscriptions need `Files.ReadWrite` or more.
	 * `business` (OneDrive for work or school): delta omits `cTag` on created and modified items; subscriptions need
	 * `Files.ReadWrite.All` (or `Sites.ReadWrite.All`).
	 */
	account?: 'personal' | 'business'
	/** Milliseconds a pre-authenticated download URL works; later it answers 401. Default: forever. */
	downloadUrlLifetimeMs?: number
}

/** The delegated scopes that let an account kind subscribe to its drive (least privileged first). */
export const SUBSCRIPTION_SCOPES = {
	personal: ['Files.ReadWrite', 'Files.ReadWrite.All'],
	business: ['Files.ReadWrite.All', 'Sites.ReadWrite.All'],
} as const

/** Graph refuses drive item subscriptions that last longer than this. */
export const MAX_SUBSCRIPTION_MINUTES = 42_300
const SELECTABLE = new Set(['$select', '$top', '$expand'])

export function startGraphEmulator(options: GraphEmulatorOptions = {}) {
	const clientId = options.clientId ?? 'graph-client'
	const clientSecret = options.clientSecret ?? 'graph-secret'
	const pageSize = options.pageSize ?? 50
	const account = options.account ?? 'personal'
	/** Scopes the consenting user (or the tenant's admin) does not grant. */
	let declined = new Set<string>()
	/** The next Graph requests whose path matches answer with `status` (a 503 or 504 outage, a 429). */
	const graphFaults: { path: RegExp; status: number; retryAfter: number | null; times: number }[] = []
	/** The next downloads answer with `status` at the download host. */
	const downloadScript: { status: number; retryAfter: number | null; times: number }[] = []
	/** Download URLs issued before this time answer 401 (they lasted "a few minutes"). */
	let downloadUrlsValidFrom = 0
	const drives = new Map<string, Drive>()
	const codes = new Map<string, IssuedCode & { scope: string; user: string }>()
	const grants = new Map<string, Grant>()
	const refreshTokens = new Map<string, { revoked: boolean; user: string }>()
	const subscriptions = new Map<string, GraphSubscription>()
	const failingDownloads = new Set<string>()
	const log: string[] = []
	const requests: { method: string; path: string; status: number; at: number; user: string | null }[] = []
	const handshakes: { url: string; ok: boolean; contentType: string | null }[] = []
	const tenants: string[] = []
	let nextId = 1
	let consenting = 'ada'
	let throttled: { count: number; retryAfter: number } | null = null
	const latestRefreshToken = new Map<string, string>()
	let revokeAfterDownloads: number | null = null
	/** A notification URL Graph cannot reach (plain http on a real service): subscriptions are refused. */
	let unreachable = false

	/** One user's drive: its items and its change feed. */
	function driveOf(user: string): Drive {
		let drive = drives.get(user)
		if (!drive) {
			drive = { user, items: new Map(), seq: 0, created: 0, epoch: 1 }
			drives.set(user, drive)
			put(drive, {
				id: `ROOT-${user}`,
				name: 'root',
				parentId: null,
				folder: true,
				bytes: new Uint8Array(),
				mimeType: '',
			})
		}
		return drive
	}

	const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
		new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })
	const graphError = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
		json({ error: { code, message } }, status, headers)
	const oauthError = (error: string, description: string) => json({ error, error_description: description }, 400)

	function put(
		drive: Drive,
		item: Omit<Item, 'seq' | 'created' | 'version' | 'contentVersion' | 'deleted' | 'modified'>,
	) {
		drive.items.set(item.id, {
			...item,
			seq: ++drive.seq,
			created: drive.created++,
			version: 1,
			contentVersion: 1,
			deleted: false,
			modified: new Date().toISOString(),
		})
		return item.id
	}

	function change(drive: Drive, id: string, apply: (item: Item) => void) {
		const item = drive.items.get(id)
		if (!item) throw new Error(`no item ${id}`)
		apply(item)
		item.seq = ++drive.seq
		item.version++
		item.modified = new Date().toISOString()
	}

	// Token endpoint -----------------------------------------------------------------------------------------------

	function issue(scope: string, user: string) {
		const access = `eyJ.${crypto.randomUUID()}`
		const granted = scope.split(' ').filter((s) => s && s !== 'offline_access' && !declined.has(s))
		grants.set(access, {
			expiresAt: Date.now() + (options.tokenLifetimeSeconds ?? 3600) * 1000,
			revoked: false,
			user,
			scopes: granted,
		})
		const body: Record<string, unknown> = {
			token_type: 'Bearer',
			scope: granted.join(' '),
			expires_in: options.tokenLifetimeSeconds ?? 3600,
			ext_expires_in: options.tokenLifetimeSeconds ?? 3600,
			access_token: access,
		}
		if (scope.split(' ').includes('offline_access')) {
			const refresh = `M.R3_${crypto.randomUUID()}`
			refreshTokens.set(refresh, { revoked: false, user })
			latestRefreshToken.set(user, refresh)
			body.refresh_token = refresh
		}
		return body
	}

	function clientAuthenticated(request: Request, form: URLSearchParams): boolean {
		const header = request.headers.get('authorization')
		if (header?.startsWith('Basic ')) {
			const [id, secret] = Buffer.from(header.slice(6), 'base64').toString().split(':')
			return decodeURIComponent(id ?? '') === clientId && decodeURIComponent(secret ?? '') === clientSecret
		}
		return form.get('client_id') === clientId && form.get('client_secret') === clientSecret
	}

	async function tokenEndpoint(request: Request): Promise<Response> {
		const form = new URLSearchParams(await request.text())
		if (!clientAuthenticated(request, form))
			return json({ error: 'invalid_client', error_description: 'AADSTS7000215' }, 401)
		if (form.get('grant_type') === 'refresh_token') {
			const token = form.get('refresh_token') ?? ''
			const known = refreshTokens.get(token)
			// A revoked grant (the fault layer's `revoke`) refuses its refresh token too.
			if (!known || known.revoked || faults.faults.revoke)
				return oauthError('invalid_grant', 'AADSTS70000: the refresh token is revoked or used')
			const scope = form.get('scope')
			if (!scope) return oauthError('invalid_request', "AADSTS90014: The required field 'scope' is missing")
			// Stricter than Microsoft (whose old refresh tokens keep working): a used one is refused, so a caller that
			// did not keep the rotated token fails here.
			known.revoked = true
			log.push('POST refresh')
			return json(issue(scope, known.user))
		}
		if (form.get('grant_type') !== 'authorization_code') return oauthError('unsupported_grant_type', 'grant')
		const code = redeemCode(codes, form, {
			unknown: () => oauthError('invalid_grant', 'AADSTS70008: the code is unknown or used'),
			redirectUri: () => oauthError('invalid_grant', 'AADSTS50148: redirect_uri'),
			verifier: () => oauthError('invalid_grant', 'AADSTS501481: the code_verifier does not match the code_challenge'),
		})
		if (code instanceof Response) return code
		log.push('POST exchange')
		return json(issue(code.scope, code.user))
	}

	function authorize(url: URL): Response {
		if (url.searchParams.get('client_id') !== clientId) return json({ error: 'unauthorized_client' }, 400)
		const redirect = new URL(url.searchParams.get('redirect_uri') ?? '')
		const code = crypto.randomUUID()
		codes.set(code, {
			redirectUri: redirect.toString(),
			challenge: url.searchParams.get('code_challenge'),
			method: url.searchParams.get('code_challenge_method'),
			scope: url.searchParams.get('scope') ?? '',
			user: consenting,
		})
		redirect.searchParams.set('code', code)
		redirect.searchParams.set('state', url.searchParams.get('state') ?? '')
		return new Response(null, { status: 302, headers: { location: redirect.toString() } })
	}

	// Graph --------------------------------------------------------------------------------------------------------

	function itemJson(drive: Drive, item: Item) {
		const parentReference = item.parentId ? { id: item.parentId, driveId: 'drive-1', driveType: 'personal' } : undefined
		if (item.deleted) return { id: item.id, deleted: { state: 'deleted' }, parentReference }
		const inDelta = drive === deltaView
		const base = {
			id: item.id,
			name: item.name,
			eTag: `"{${item.id}},${item.version}"`,
			...(account === 'business' && inDelta ? {} : { cTag: `"c:{${item.id}},${item.contentVersion}"` }),
			webUrl: `https://onedrive.example/view/${item.id}`,
			lastModifiedDateTime: item.modified,
			...(parentReference ? { parentReference } : {}),
		}
		if (item.parentId === null) return { ...base, root: {}, folder: { childCount: 0 } }
		if (item.folder) return { ...base, size: 0, folder: { childCount: children(drive, item.id).length } }
		return { ...base, size: item.bytes.byteLength, file: { mimeType: item.mimeType, hashes: hashesOf(item.bytes) } }
	}

	/**
	 * A content digest where Graph sends quickXorHash (20 bytes, base64; the emulator takes SHA-1's 20 bytes, which
	 * changes with the content just the same); personal drives also carry sha1Hash.
	 */
	function hashesOf(bytes: Uint8Array) {
		const digest = createHash('sha1').update(bytes).digest()
		return account === 'business'
			? { quickXorHash: digest.toString('base64') }
			: { quickXorHash: digest.toString('base64'), sha1Hash: digest.toString('hex').toUpperCase() }
	}

	/** Set while a delta page is written (business delta leaves cTag out). */
	let deltaView: Drive | null = null

	const children = (drive: Drive, parentId: string) =>
		[...drive.items.values()].filter((i) => i.parentId === parentId && !i.deleted)

	function keptQuery(url: URL): string {
		const kept = [...url.searchParams].filter(([key]) => SELECTABLE.has(key))
		return kept.map(([key, value]) => `&${key}=${value}`).join('')
	}

	function delta(drive: Drive, url: URL): Response {
		const token = url.searchParams.get('token')
		let since = 0
		let upto = drive.seq
		let offset = 0
		if (token) {
			const [kind, tokenEpoch, ...rest] = token.split('.')
			if (Number(tokenEpoch) !== drive.epoch) {
				log.push('410 delta')
				return graphError(410, 'resyncRequired', 'Resync required. Replace any local items with the server version', {
					location: `${server.url.origin}/v1.0/me/drive/root/delta`,
				})
			}
			if (kind === 'd') {
				since = Number(rest[0])
				upto = drive.seq
			} else {
				;[since, upto, offset] = rest.map(Number) as [number, number, number]
			}
		}
		log.push(token ? `GET delta since ${since}` : 'GET delta full')
		const changed = [...drive.items.values()]
			.filter((item) => item.seq <= upto && (since === 0 ? !item.deleted : item.seq > since))
			.sort((a, b) => a.created - b.created)
		const page = changed.slice(offset, offset + pageSize)
		const base = `${server.url.origin}/v1.0/me/drive/root/delta`
		const more = offset + pageSize < changed.length
		deltaView = drive
		const value = page.map((item) => itemJson(drive, item))
		deltaView = null
		return json({
			value,
			...(more
				? { '@odata.nextLink': `${base}?token=n.${drive.epoch}.${since}.${upto}.${offset + pageSize}${keptQuery(url)}` }
				: { '@odata.deltaLink': `${base}?token=d.${drive.epoch}.${upto}${keptQuery(url)}` }),
		})
	}

	function grantOf(request: Request): Grant | null {
		const token = (request.headers.get('authorization') ?? '').replace(/^Bearer\s+/i, '')
		const grant = grants.get(token)
		return grant && !grant.revoked && grant.expiresAt > Date.now() ? grant : null
	}

	async function subscriptionsRoute(request: Request, parts: string[], grant: Grant): Promise<Response> {
		const user = grant.user
		const id = parts[1]
		if (request.method === 'POST' && !id) {
			const body = (await request.json()) as Record<string, string>
			if (!SUBSCRIPTION_SCOPES[account].some((scope) => grant.scopes.includes(scope))) {
				log.push('403 subscription')
				return graphError(
					403,
					'ExtensionError',
					'Operation: Create; Exception: [Status Code: Forbidden; Reason: Access denied]',
				)
			}
			if (body.changeType !== 'updated') return graphError(400, 'InvalidRequest', 'driveItem supports only updated')
			if (!['me/drive/root', '/me/drive/root'].includes(body.resource ?? '')) {
				return graphError(400, 'InvalidRequest', `unsupported resource ${body.resource}`)
			}
			const expiry = Date.parse(body.expirationDateTime ?? '')
			if (!(expiry > Date.now()) || expiry > Date.now() + MAX_SUBSCRIPTION_MINUTES * 60_000) {
				return graphError(400, 'InvalidRequest', 'Subscription expiration can only be 42300 minutes in the future.')
			}
			for (const url of new Set([body.notificationUrl, body.lifecycleNotificationUrl].filter(Boolean) as string[])) {
				if (unreachable || !(await validate(url))) {
					return graphError(
						400,
						'ValidationError',
						'Subscription validation request failed. Response must exactly match validationToken query parameter.',
					)
				}
			}
			const subscription: GraphSubscription = {
				id: `sub-${nextId++}`,
				notificationUrl: body.notificationUrl!,
				lifecycleNotificationUrl: body.lifecycleNotificationUrl ?? null,
				clientState: body.clientState ?? '',
				resource: body.resource!,
				expirationDateTime: new Date(expiry).toISOString(),
				user,
			}
			subscriptions.set(subscription.id, subscription)
			log.push('POST subscription')
			return json({ ...subscription, user: undefined, clientState: null }, 201)
		}
		const subscription = subscriptions.get(id ?? '')
		if (!subscription || subscription.user !== user) return graphError(404, 'ResourceNotFound', 'no such subscription')
		if (request.method === 'PATCH') {
			const body = (await request.json()) as { expirationDateTime?: string }
			const expiry = Date.parse(body.expirationDateTime ?? '')
			if (!(expiry > Date.now()) || expiry > Date.now() + MAX_SUBSCRIPTION_MINUTES * 60_000) {
				return graphError(400, 'InvalidRequest', 'Subscription expiration can only be 42300 minutes in the future.')
			}
			subscription.expirationDateTime = new Date(expiry).toISOString()
			log.push(`PATCH subscription ${subscription.id}`)
			return json({ ...subscription, user: undefined, clientState: null })
		}
		if (request.method === 'DELETE') {
			subscriptions.delete(subscription.id)
			log.push(`DELETE subscription ${subscription.id}`)
			return new Response(null, { status: 204 })
		}
		return graphError(405, 'MethodNotAllowed', request.method)
	}

	/** Graph's check of a notification URL: the token, URL-encoded, must come back as plain text within 10 s. */
	async function validate(url: string): Promise<boolean> {
		const token = `Validation: Testing client application reachability for subscription Request-Id: ${crypto.randomUUID()}`
		try {
			const target = new URL(url)
			target.searchParams.set('validationToken', token)
			const response = await fetch(target, {
				method: 'POST',
				headers: { 'content-type': 'text/plain; charset=utf-8' },
				signal: AbortSignal.timeout(10_000),
			})
			const contentType = response.headers.get('content-type')
			const ok =
				response.status === 200 && (contentType ?? '').startsWith('text/plain') && (await response.text()) === token
			handshakes.push({ url, ok, contentType })
			return ok
		} catch {
			handshakes.push({ url, ok: false, contentType: null })
			return false
		}
	}

	async function graph(request: Request, url: URL, grant: Grant): Promise<Response> {
		const parts = url.pathname.split('/').filter(Boolean).slice(1).map(decodeURIComponent)
		const fault = graphFaults.find((candidate) => candidate.times > 0 && candidate.path.test(url.pathname + url.search))
		if (fault) {
			fault.times--
			log.push(`${fault.status} ${url.pathname}`)
			const headers: Record<string, string> =
				fault.retryAfter === null ? {} : { 'retry-after': String(fault.retryAfter) }
			if (fault.status === 429) return graphError(429, 'TooManyRequests', 'Please retry again later.', headers)
			if (fault.status === 504) return graphError(504, 'UnknownError', 'Gateway timeout', headers)
			return graphError(fault.status, 'serviceNotAvailable', 'Service unavailable', headers)
		}
		if (throttled && throttled.count > 0) {
			throttled.count--
			log.push('429')
			return graphError(429, 'TooManyRequests', 'Please retry again later.', {
				'retry-after': String(throttled.retryAfter),
			})
		}
		const drive = driveOf(grant.user)
		const root = drive.items.get(`ROOT-${grant.user}`)!
		const path = parts.join('/')
		if (path === 'me') {
			const mail = `${grant.user}@contoso.example`
			return json({ id: grant.user, displayName: grant.user, mail, userPrincipalName: mail })
		}
		if (parts[0] === 'subscriptions') return subscriptionsRoute(request, parts, grant)
		if (path === 'me/drive/root/delta') return delta(drive, url)
		if (path === 'me/drive/root') return json(itemJson(drive, root))
		if (path === 'me/drive/root/children') {
			return json({ value: children(drive, root.id).map((child) => itemJson(drive, child)) })
		}
		if (parts[0] === 'me' && parts[1] === 'drive' && parts[2] === 'items' && parts[3]) {
			const item = drive.items.get(parts[3])
			if (!item || item.deleted) return graphError(404, 'itemNotFound', 'The resource could not be found.')
			if (parts[4] === 'children') {
				return json({ value: children(drive, item.id).map((child) => itemJson(drive, child)) })
			}
			if (parts[4] === 'content') {
				log.push(`GET content ${item.id}`)
				if (revokeAfterDownloads !== null && revokeAfterDownloads-- <= 0) {
					revokeAfterDownloads = null
					revokeAll(grant.user)
					return graphError(401, 'InvalidAuthenticationToken', 'Access token has been revoked.')
				}
				return new Response(null, {
					status: 302,
					headers: {
						location: `${downloads.url.origin}/download/${grant.user}/${item.id}?v=${item.contentVersion}&issued=${Date.now()}`,
					},
				})
			}
			if (parts.length === 4) return json(itemJson(drive, item))
		}
		return graphError(404, 'itemNotFound', `no route ${request.method} ${url.pathname}`)
	}

	function revokeAll(user: string) {
		for (const grant of grants.values()) if (grant.user === user) grant.revoked = true
		for (const refresh of refreshTokens.values()) if (refresh.user === user) refresh.revoked = true
	}

	const faults = faultLayer('graph')
	const server = Bun.serve({
		hostname: '127.0.0.1',
		port: 0,
		async fetch(request) {
			const fault = await faults.before(request)
			if (fault) return fault
			const url = new URL(request.url)
			const oauth = url.pathname.match(/^\/([^/]+)\/oauth2\/v2\.0\/(authorize|token)$/)
			if (oauth) {
				tenants.push(oauth[1]!)
				return oauth[2] === 'authorize' ? authorize(url) : tokenEndpoint(request)
			}
			if (!url.pathname.startsWith('/v1.0/')) return graphError(404, 'NotFound', url.pathname)
			const grant = grantOf(request)
			const response = grant
				? await graph(request, url, grant)
				: graphError(401, 'InvalidAuthenticationToken', 'Access token is empty or invalid.')
			requests.push({
				method: request.method,
				path: `${url.pathname}${url.search}`,
				status: response.status,
				at: Date.now(),
				user: grant?.user ?? null,
			})
			return response
		},
	})

	/** The pre-authenticated download host: no token needed (and none should arrive). */
	const downloadAuthorizations: (string | null)[] = []
	const downloadFaults = faultLayer('graph')
	const downloads = Bun.serve({
		hostname: '127.0.0.1',
		port: 0,
		async fetch(request) {
			const fault = await downloadFaults.before(request)
			if (fault) return fault
			const url = new URL(request.url)
			const [, , user, id] = url.pathname.split('/').map(decodeURIComponent)
			downloadAuthorizations.push(request.headers.get('authorization'))
			if (options.downloadDelayMs) await Bun.sleep(options.downloadDelayMs)
			const issued = Number(url.searchParams.get('issued') ?? 0)
			const lifetime = options.downloadUrlLifetimeMs ?? Number.POSITIVE_INFINITY
			if (issued < downloadUrlsValidFrom || Date.now() - issued > lifetime) {
				log.push(`401 download ${id}`)
				return new Response('<Error><Code>InvalidAuthenticationToken</Code></Error>', { status: 401 })
			}
			const scripted = downloadScript.find((candidate) => candidate.times > 0)
			if (scripted) {
				scripted.times--
				log.push(`${scripted.status} download ${id}`)
				const headers: Record<string, string> =
					scripted.retryAfter === null ? {} : { 'retry-after': String(scripted.retryAfter) }
				return new Response('throttled', { status: scripted.status, headers })
			}
			const item = drives.get(user ?? '')?.items.get(id ?? '')
			if (!item || item.deleted) return new Response('gone', { status: 404 })
			if (failingDownloads.has(item.id)) return new Response('storage node failure', { status: 500 })
			return new Response(item.bytes, { headers: { 'content-type': 'application/octet-stream' } })
		},
	})

	const graphUrl = server.url.origin
	const bytesOf = (content: string | Uint8Array) =>
		typeof content === 'string' ? new TextEncoder().encode(content) : content

	async function deliver(url: string, body: unknown) {
		const response = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(body),
		})
		return { status: response.status, body: await response.text() }
	}

	return {
		faults,
		downloadFaults,
		/** Graph's and the login endpoint's root (the same origin here). */
		url: graphUrl,
		clientId,
		clientSecret,
		log,
		requests,
		handshakes,
		tenants,
		downloadAuthorizations,
		/** The user the next authorization consents as (each user has a drive of their own). */
		consentAs(user: string) {
			consenting = user
			driveOf(user)
		},
		/** A user's drive, to add, change, move and delete items in. */
		drive(user: string) {
			const drive = driveOf(user)
			return {
				rootId: `ROOT-${user}`,
				addFolder(name: string, parentId = `ROOT-${user}`): string {
					const id = `F${nextId++}`
					return put(drive, { id, name, parentId, folder: true, bytes: new Uint8Array(), mimeType: '' })
				},
				addFile(
					name: string,
					content: string | Uint8Array,
					parentId = `ROOT-${user}`,
					mimeType = 'application/octet-stream',
				) {
					const id = `I${nextId++}`
					return put(drive, { id, name, parentId, folder: false, bytes: bytesOf(content), mimeType })
				},
				updateFile(id: string, content: string | Uint8Array) {
					change(drive, id, (item) => {
						item.bytes = bytesOf(content)
						item.contentVersion++
					})
				},
				/** A metadata change (a rename, sharing): the eTag moves, the content, cTag and hashes do not. */
				rename(id: string, name: string) {
					change(drive, id, (item) => {
						item.name = name
					})
				},
				touch(id: string) {
					change(drive, id, () => {})
				},
				move(id: string, parentId: string) {
					change(drive, id, (item) => {
						item.parentId = parentId
					})
				},
				/**
				 * Deletes an item; delta then lists it with the `deleted` facet. What was under a deleted folder goes with
				 * it but is not listed (as on OneDrive for Business): only a full listing shows it is gone.
				 */
				remove(id: string) {
					change(drive, id, (item) => {
						item.deleted = true
					})
					let orphans = [...drive.items.values()].filter(
						(item) => !item.deleted && drive.items.get(item.parentId ?? '')?.deleted,
					)
					while (orphans.length > 0) {
						for (const orphan of orphans) orphan.deleted = true
						orphans = [...drive.items.values()].filter(
							(item) => !item.deleted && drive.items.get(item.parentId ?? '')?.deleted,
						)
					}
				},
				/** Drops an item without a trace in the change feed: only a full listing shows it is gone. */
				purge(id: string) {
					drive.items.delete(id)
				},
				/** Every delta token issued so far answers 410 Gone (resyncRequired). */
				forceResync() {
					drive.epoch++
				},
			}
		},
		/** The next `count` Graph requests answer 429 with `Retry-After: retryAfter`. */
		throttle(count: number, retryAfter: number) {
			throttled = { count, retryAfter }
		},
		/** Subscriptions fail their validation, as for an address Graph cannot reach. */
		refuseSubscriptions(refuse: boolean) {
			unreachable = refuse
		},
		failDownload(id: string) {
			failingDownloads.add(id)
		},
		/** Graph dropped the subscription (it lapsed, or was removed): no notification says so for drive items. */
		dropSubscription(id: string) {
			subscriptions.delete(id)
		},
		/** Scopes the next consents leave out (a user or admin who did not grant them). */
		declineScopes(scopes: string[]) {
			declined = new Set(scopes)
		},
		/** The next `times` Graph requests whose path and query match answer `status` (429, 503, 504). */
		failGraph(path: RegExp, status: number, times = 1, retryAfter: number | null = null) {
			graphFaults.push({ path, status, retryAfter, times })
		},
		/** The next `times` downloads answer `status` at the download host (429, 503). */
		failDownloads(status: number, times = 1, retryAfter: number | null = null) {
			downloadScript.push({ status, retryAfter, times })
		},
		/** Every download URL handed out so far has lapsed: it answers 401. */
		expireDownloadUrls() {
			downloadUrlsValidFrom = Date.now() + 1
		},
		/** The user revoked the application: their tokens stop working, refreshing answers invalid_grant. */
		revokeAll,
		/** After `count` more downloads, every grant is revoked. */
		revokeAfterDownloads(count: number) {
			revokeAfterDownloads = count
		},
		latestRefreshToken: (user: string) => latestRefreshToken.get(user) ?? null,
		downloadCount: () => log.filter((line) => line.startsWith('GET content')).length,
		subscriptions: (user: string) => [...subscriptions.values()].filter((s) => s.user === user),
		/** A change notification for the subscription, as Graph delivers it; `clientState` forges another. */
		notify(subscriptionId: string, override: { clientState?: string; subscriptionId?: string } = {}) {
			const subscription = subscriptions.get(subscriptionId)!
			return deliver(subscription.notificationUrl, {
				value: [
					{
						subscriptionId: override.subscriptionId ?? subscription.id,
						subscriptionExpirationDateTime: subscription.expirationDateTime,
						clientState: override.clientState ?? subscription.clientState,
						changeType: 'updated',
						resource: subscription.resource,
						tenantId: 'tenant-1',
					},
				],
			})
		},
		/** A lifecycle notification: for drive items, Graph sends only `reauthorizationRequired`. */
		lifecycle(subscriptionId: string, lifecycleEvent: 'reauthorizationRequired') {
			const subscription = subscriptions.get(subscriptionId)!
			return deliver(subscription.lifecycleNotificationUrl ?? subscription.notificationUrl, {
				value: [
					{
						subscriptionId,
						subscriptionExpirationDateTime: subscription.expirationDateTime,
						tenantId: 'tenant-1',
						clientState: subscription.clientState,
						lifecycleEvent,
					},
				],
			})
		},
		stop() {
			server.stop(true)
			downloads.stop(true)
		},
	}
}

export type GraphEmulator = ReturnType<typeof startGraphEmulator>
