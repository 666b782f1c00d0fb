import http, { type IncomingMessage } from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import type { Readable } from 'node:stream'
import zlib from 'node:zlib'
import { StageError } from '../../errors.ts'
import { type AllowList, bareHost, isIpLiteral, type Resolver, refusal, systemResolver } from './url-guard.ts'

export interface FetchPolicy {
	allow: AllowList
	/** Largest body read (after decompression). */
	maxBytes: number
	/** A larger body is cut at `maxBytes` and kept, not refused (a robots.txt: RFC 9309 §2.5). */
	truncate?: boolean
	/** For the whole fetch, redirects included. */
	timeoutMs: number
	maxRedirects?: number
	/** How host names become addresses; the system resolver unless a test gives its own. */
	resolve?: Resolver
	/** Request headers added to (or replacing) the defaults: a crawler's user agent, conditional request headers. */
	headers?: Record<string, string>
	/** Asked before a redirect is followed (a crawler's robots rules and scope); false refuses it unfetched. */
	followRedirect?(to: URL): boolean
}

export interface Fetched {
	/** The URL that answered, after redirects. */
	url: string
	contentType: string | null
	/** The file name the server gave (Content-Disposition) or the last path segment. */
	fileName: string | null
	body: Uint8Array
	/** Validators for a later conditional request. */
	etag: string | null
	lastModified: string | null
	/** The `X-Robots-Tag` header (several joined by commas), for a crawler. */
	robotsTag?: string | null
}

/** A fetch that failed; `permanent` when trying again cannot help (refused address, 404, too large). */
export class FetchError extends StageError {
	constructor(
		message: string,
		permanent: boolean,
		/** The HTTP status that ended the fetch (304 for a conditional request's unchanged answer, 404, 410...). */
		readonly status: number | null = null,
		/** The answer's `Retry-After` (429, 503), as sent. */
		readonly retryAfter: string | null = null,
	) {
		super(message, permanent)
	}
}

const REDIRECTS = new Set([301, 302, 303, 307, 308])
/** Client errors that may pass: timeouts, too early, rate limits. */
const TRANSIENT_CLIENT_ERRORS = new Set([408, 425, 429])
const DEFAULT_MAX_REDIRECTS = 5

/**
 * GETs an http(s) URL for the extracting stage, guarded against server-side request forgery: every hop (the URL and
 * each redirect) is resolved, every address checked against the allow-list rules, and the connection is made to
 * the checked address itself, so DNS cannot answer differently between the check and the connect.
 */
export async function fetchUrl(input: string, policy: FetchPolicy): Promise<Fetched> {
	const controller = new AbortController()
	const timer = setTimeout(() => controller.abort(), policy.timeoutMs)
	try {
		let url = parseHttpUrl(input)
		const maxRedirects = policy.maxRedirects ?? DEFAULT_MAX_REDIRECTS
		for (let hop = 0; ; hop++) {
			const address = await checkedAddress(url, policy)
			// Validators belong to the URL asked for: not sent on to another host.
			const headers = hop === 0 || url.host === new URL(input).host ? policy.headers : withoutValidators(policy.headers)
			const response = await get(url, address, controller.signal, headers)
			const status = response.statusCode ?? 0
			if (REDIRECTS.has(status) && response.headers.location) {
				response.resume()
				if (hop >= maxRedirects) throw new FetchError(`more than ${maxRedirects} redirects`, true)
				const next = parseHttpUrl(new URL(response.headers.location, url).toString())
				if (policy.followRedirect && !policy.followRedirect(next)) {
					throw new FetchError(`${url.origin} redirects to ${next}, which is not followed`, true, status)
				}
				url = next
				continue
			}
			if (status < 200 || status >= 300) {
				response.resume()
				const permanent = status >= 400 && status < 500 && !TRANSIENT_CLIENT_ERRORS.has(status)
				throw new FetchError(
					`${url.origin} answered HTTP ${status} ${response.statusMessage ?? ''}`.trim(),
					permanent,
					status,
					headerOf(response, 'retry-after'),
				)
			}
			const body = await readBody(response, policy.maxBytes, policy.truncate ?? false)
			return {
				url: url.toString(),
				contentType: response.headers['content-type'] ?? null,
				fileName: fileNameOf(response.headers['content-disposition'], url),
				body,
				etag: headerOf(response, 'etag'),
				lastModified: headerOf(response, 'last-modified'),
				robotsTag: robotsTagHeader(response),
			}
		}
	} catch (error) {
		if (controller.signal.aborted) throw new FetchError(`the fetch took longer than ${policy.timeoutMs} ms`, false)
		if (error instanceof FetchError) throw error
		throw describeNetworkError(error)
	} finally {
		clearTimeout(timer)
	}
}

function withoutValidators(headers: Record<string, string> | undefined): Record<string, string> | undefined {
	if (!headers) return headers
	return Object.fromEntries(Object.entries(headers).filter(([name]) => !/^if-(none-match|modified-since)$/i.test(name)))
}

function parseHttpUrl(text: string): URL {
	let url: URL
	try {
		url = new URL(text)
	} catch {
		throw new FetchError(`"${text}" is not a valid URL`, true)
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		throw new FetchError(`only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, '')}`, true)
	}
	if (url.username || url.password) throw new FetchError('URLs with credentials are not fetched', true)
	return url
}

/** Resolves the host and returns an address it may connect to, or throws naming the address it refused. */
async function checkedAddress(url: URL, policy: FetchPolicy): Promise<{ address: string; family: 4 | 6 }> {
	const host = bareHost(url)
	let addresses: string[]
	if (isIpLiteral(host)) addresses = [host]
	else {
		try {
			addresses = await (policy.resolve ?? systemResolver)(host)
		} catch (error) {
			const code = (error as { code?: string }).code
			const permanent = code === 'ENOTFOUND' || code === 'ENODATA'
			throw new FetchError(`cannot resolve ${host}: ${code ?? (error as Error).message}`, permanent)
		}
	}
	if (addresses.length === 0) throw new FetchError(`cannot resolve ${host}: no addresses`, true)
	// Every address must pass: a name that mixes a public and a private address is refused whole.
	for (const address of addresses) {
		const reason = refusal(address, host, policy.allow)
		if (reason) {
			throw new FetchError(
				`refused to fetch ${url.origin}: ${reason} (add the host or its range to MEMORY_URL_ALLOWLIST to allow it)`,
				true,
			)
		}
	}
	// IPv4 first, as most clients do: a name with both often serves only one of them.
	const address = addresses.find((candidate) => !candidate.includes(':')) ?? addresses[0]!
	return { address, family: address.includes(':') ? 6 : 4 }
}

function robotsTagHeader(response: IncomingMessage): string | null {
	const value = response.headers['x-robots-tag']
	if (Array.isArray(value)) return value.join(', ')
	return typeof value === 'string' ? value : null
}

const headerOf = (response: IncomingMessage, name: string): string | null => {
	const value = response.headers[name]
	return typeof value === 'string' ? value : null
}

function get(
	url: URL,
	target: { address: string; family: 4 | 6 },
	signal: AbortSignal,
	extraHeaders: Record<string, string> = {},
): Promise<IncomingMessage> {
	// The connection goes to the address that was checked, whatever the resolver would say now.
	const pinned: LookupFunction = (_hostname, options, callback) => {
		if ((options as { all?: boolean }).all) callback(null, [{ address: target.address, family: target.family }])
		else callback(null, target.address, target.family)
	}
	const client = url.protocol === 'https:' ? https : http
	return new Promise((resolve, reject) => {
		const request = client.request(
			{
				protocol: url.protocol,
				hostname: bareHost(url),
				port: url.port || undefined,
				path: `${url.pathname}${url.search}`,
				method: 'GET',
				lookup: pinned,
				signal,
				headers: {
					'user-agent': 'memory-service/0.1 (+content ingestion)',
					accept: 'text/html,application/xhtml+xml,application/pdf,text/plain,application/json,*/*;q=0.5',
					'accept-encoding': 'gzip, deflate, br',
					...Object.fromEntries(Object.entries(extraHeaders).map(([name, value]) => [name.toLowerCase(), value])),
				},
			},
			resolve,
		)
		request.on('error', reject)
		request.end()
	})
}

async function readBody(response: IncomingMessage, maxBytes: number, truncate: boolean): Promise<Uint8Array> {
	const tooLarge = () => new FetchError(`the response is larger than ${maxBytes} bytes`, true)
	const declared = Number(response.headers['content-length'])
	const encoding = (response.headers['content-encoding'] ?? '').toLowerCase().trim()
	if (!truncate && !encoding && Number.isFinite(declared) && declared > maxBytes) {
		response.destroy()
		throw tooLarge()
	}
	const stream = decoded(response, encoding)
	const parts: Uint8Array[] = []
	let total = 0
	for await (const chunk of stream) {
		total += (chunk as Uint8Array).length
		if (total > maxBytes) {
			response.destroy()
			stream.destroy()
			if (!truncate) throw tooLarge()
			const chunkBytes = chunk as Uint8Array
			parts.push(chunkBytes.subarray(0, chunkBytes.length - (total - maxBytes)))
			break
		}
		parts.push(chunk as Uint8Array)
	}
	return Buffer.concat(parts)
}

/** The body, decompressed as the server encoded it; the size limit applies to what comes out. */
function decoded(response: IncomingMessage, encoding: string): Readable {
	switch (encoding) {
		case '':
		case 'identity':
			return response
		case 'gzip':
		case 'x-gzip':
			return response.pipe(zlib.createGunzip())
		case 'deflate':
			return response.pipe(zlib.createInflate())
		case 'br':
			return response.pipe(zlib.createBrotliDecompress())
		default:
			throw new FetchError(`the response uses an unknown content encoding "${encoding}"`, true)
	}
}

function fileNameOf(disposition: string | undefined, url: URL): string | null {
	const named = disposition ? /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition)?.[1] : undefined
	if (named) return decodeURIComponentSafe(named)
	const last = url.pathname.split('/').filter(Boolean).pop()
	return last ? decodeURIComponentSafe(last) : null
}

function decodeURIComponentSafe(text: string): string {
	try {
		return decodeURIComponent(text)
	} catch {
		return text
	}
}

function describeNetworkError(error: unknown): FetchError {
	const code = (error as { code?: string }).code
	const message = error instanceof Error ? error.message : String(error)
	// Certificates do not fix themselves on a retry; refused connections and resets may.
	const permanent = typeof code === 'string' && /CERT|SSL|TLS/.test(code)
	return new FetchError(`the fetch failed: ${code ? `${code} ` : ''}${message}`.trim(), permanent)
}
