import { ServiceError } from '../../errors.ts'
import { jsonDepthTracker, MAX_JSON_DEPTH } from './json-depth.ts'

/** Largest request head (request line and headers) the app takes; the runtime's own cap is set higher (see main.ts). */
export const MAX_HEADER_BYTES = 16 * 1024

/**
 * The runtime's cap on a request head, set by `bun run start` (`--max-http-header-size`): far above MAX_HEADER_BYTES, so
 * the app sees an oversized head and answers 431 as JSON; only a head over this cap gets the runtime's bare 431.
 */
export const RUNTIME_HEADER_BYTES = 1024 * 1024

/** Room for the upload form's other fields and multipart framing. */
export const UPLOAD_FORM_OVERHEAD = 1024 * 1024

export interface SizeLimits {
	maxBodyBytes: number
	/** Largest file POST /v3/documents/file takes (its body may be that plus the form's other fields). */
	maxUploadBytes?: number
}

const tooLarge = (bytes: number | null, limit: number) =>
	new ServiceError(
		413,
		'Payload too large',
		bytes === null
			? `the body is over the limit of ${limit} bytes`
			: `the body is ${bytes} bytes; the limit is ${limit}`,
	)

const tooDeep = () =>
	new ServiceError(
		400,
		'Invalid request body',
		`the JSON nests deeper than ${MAX_JSON_DEPTH} levels of arrays or objects`,
	)

/** The body limit of a request: the upload route takes files up to the upload limit, every other route the body limit. */
export function bodyLimit(request: Request, limits: SizeLimits): number {
	if (limits.maxUploadBytes === undefined || request.method !== 'POST') return limits.maxBodyBytes
	const path = request.url.slice(request.url.indexOf('/', request.url.indexOf('//') + 2)).split('?')[0]
	return path === '/v3/documents/file' ? limits.maxUploadBytes + UPLOAD_FORM_OVERHEAD : limits.maxBodyBytes
}

/** Refuses a request whose head is too large (431) or whose declared length is over its limit (413). */
export function checkDeclaredSize(request: Request, limits: SizeLimits): void {
	let headBytes = request.method.length + request.url.length
	request.headers.forEach((value, name) => {
		headBytes += name.length + value.length + 4
	})
	if (headBytes > MAX_HEADER_BYTES) {
		throw new ServiceError(
			431,
			'Request header fields too large',
			`the request line and headers are about ${headBytes} bytes; the limit is ${MAX_HEADER_BYTES}`,
		)
	}
	const declared = request.headers.get('content-length')
	const limit = bodyLimit(request, limits)
	if (declared !== null && Number(declared) > limit) throw tooLarge(Number(declared), limit)
}

/**
 * The same request with its body counted as it is read: past the limit (a chunked body declares no length) reading
 * fails with 413, and JSON nesting deeper than MAX_JSON_DEPTH fails with 400 before anything parses it. Requests
 * without a body are returned unchanged.
 */
export function guardBody(request: Request, limits: SizeLimits): Request {
	if (!request.body) return request
	const limit = bodyLimit(request, limits)
	const json = (request.headers.get('content-type') ?? '').toLowerCase().includes('json')
	const depth = json ? jsonDepthTracker() : null
	let received = 0
	const body = request.body.pipeThrough(
		new TransformStream<Uint8Array, Uint8Array>({
			transform(chunk, controller) {
				received += chunk.byteLength
				if (received > limit) throw tooLarge(null, limit)
				if (depth && !depth.push(chunk)) throw tooDeep()
				controller.enqueue(chunk)
			},
		}),
	)
	return new Request(request.url, {
		method: request.method,
		headers: request.headers,
		body,
		signal: request.signal,
		duplex: 'half',
	} as RequestInit)
}
