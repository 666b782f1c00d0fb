import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { FetchError, type FetchPolicy, fetchUrl } from '../../core/pipeline/extract/fetch-url.ts'
import { parseAllowList, refusal } from '../../core/pipeline/extract/url-guard.ts'

/** A real HTTP server on loopback; the fetcher must be allowed to reach it, and refused when it is not. */
describe('fetchUrl', () => {
	let server: ReturnType<typeof Bun.serve>
	let base: string
	let hits: string[]
	beforeAll(() => {
		hits = []
		server = Bun.serve({
			port: 0,
			hostname: '127.0.0.1',
			async fetch(request) {
				const url = new URL(request.url)
				hits.push(url.pathname)
				switch (url.pathname) {
					case '/page':
						return new Response('<html><body><p>hello</p></body></html>', {
							headers: { 'content-type': 'text/html; charset=utf-8' },
						})
					case '/redirect-local':
						return Response.redirect(`${base}/page`, 302)
					case '/redirect-other-loopback':
						return Response.redirect(`http://127.0.0.2:${server.port}/page`, 302)
					case '/redirect-metadata':
						return Response.redirect('http://169.254.169.254/latest/meta-data/', 302)
					case '/redirect-file':
						return new Response(null, { status: 302, headers: { location: 'file:///etc/passwd' } })
					case '/loop':
						return Response.redirect(`${base}/loop`, 302)
					case '/big':
						return new Response('x'.repeat(10_000))
					case '/gzip':
						return new Response(gzipSync('compressed words'), {
							headers: { 'content-encoding': 'gzip', 'content-type': 'text/plain' },
						})
					case '/gzip-bomb':
						return new Response(gzipSync(Buffer.alloc(5_000_000, 0x20)), { headers: { 'content-encoding': 'gzip' } })
					case '/missing':
						return new Response('no', { status: 404 })
					case '/down':
						return new Response('busy', { status: 503 })
					case '/slow':
						await Bun.sleep(5_000)
						return new Response('late')
					case '/validated':
						if (request.headers.get('if-none-match') === '"v1"') return new Response(null, { status: 304 })
						return new Response(`agent ${request.headers.get('user-agent')}`, {
							headers: { etag: '"v1"', 'last-modified': 'Tue, 03 Nov 2026 10:00:00 GMT' },
						})
					case '/named':
						return new Response('data', { headers: { 'content-disposition': 'attachment; filename="report.pdf"' } })
					default:
						return new Response('?', { status: 400 })
				}
			},
		})
		base = `http://127.0.0.1:${server.port}`
	})
	afterAll(() => server.stop(true))

	const policy = (allow: string[], overrides: Partial<FetchPolicy> = {}): FetchPolicy => ({
		allow: parseAllowList(allow),
		maxBytes: 1_000_000,
		timeoutMs: 5_000,
		...overrides,
	})

	async function refused(url: string, p: FetchPolicy): Promise<FetchError> {
		try {
			await fetchUrl(url, p)
		} catch (error) {
			expect(error).toBeInstanceOf(FetchError)
			return error as FetchError
		}
		throw new Error(`${url} was fetched`)
	}

	it('refuses a loopback URL when the allow-list does not name it, without connecting', async () => {
		const before = hits.length
		const error = await refused(`${base}/page`, policy([]))
		expect(error.permanent).toBe(true)
		expect(error.message).toContain('127.0.0.1 is a loopback address')
		expect(hits.length).toBe(before)
	})

	it('refuses a host name after resolving it to a loopback address', async () => {
		const error = await refused(`http://localhost:${server.port}/page`, policy([]))
		expect(error.message).toMatch(/is a loopback address/)
	})

	it('fetches from a host the allow-list names, by address or by name', async () => {
		const byAddress = await fetchUrl(`${base}/page`, policy(['127.0.0.1']))
		expect(new TextDecoder().decode(byAddress.body)).toContain('hello')
		expect(byAddress.contentType).toContain('text/html')
		const byRange = await fetchUrl(`${base}/page`, policy(['127.0.0.0/8']))
		expect(byRange.body.length).toBeGreaterThan(0)
		const byName = await fetchUrl(`http://localhost:${server.port}/page`, policy(['localhost']))
		expect(byName.body.length).toBeGreaterThan(0)
	})

	it('connects to the address it checked, not to what the name resolves to later', async () => {
		let lookups = 0
		// A name the system resolver does not know: the fetch can only succeed through the checked address.
		const resolve = async () => {
			lookups++
			return lookups === 1 ? ['127.0.0.1'] : ['169.254.169.254']
		}
		const fetched = await fetchUrl(`http://rebinding.test:${server.port}/page`, policy(['127.0.0.1'], { resolve }))
		expect(new TextDecoder().decode(fetched.body)).toContain('hello')
		expect(lookups).toBe(1)
	})

	it('sends the headers it is given and returns the validators; a 304 fails with its status', async () => {
		const first = await fetchUrl(`${base}/validated`, policy(['127.0.0.1'], { headers: { 'User-Agent': 'crawler/1' } }))
		expect(new TextDecoder().decode(first.body)).toBe('agent crawler/1')
		expect(first.etag).toBe('"v1"')
		expect(first.lastModified).toBe('Tue, 03 Nov 2026 10:00:00 GMT')
		const again = await refused(`${base}/validated`, policy(['127.0.0.1'], { headers: { 'If-None-Match': '"v1"' } }))
		expect(again.status).toBe(304)
		expect((await refused(`${base}/missing`, policy(['127.0.0.1']))).status).toBe(404)
	})

	it('refuses a name when any of its addresses is refused', async () => {
		const resolve = async () => ['93.184.216.34', '10.0.0.5']
		const error = await refused('http://mixed.test/', policy([], { resolve }))
		expect(error.message).toContain('10.0.0.5 is a private address')
	})

	it('checks every redirect hop again', async () => {
		const local = await fetchUrl(`${base}/redirect-local`, policy(['127.0.0.1']))
		expect(local.url).toBe(`${base}/page`)
		const other = await refused(`${base}/redirect-other-loopback`, policy(['127.0.0.1']))
		expect(other.message).toContain('127.0.0.2 is a loopback address')
		const metadata = await refused(`${base}/redirect-metadata`, policy(['127.0.0.1']))
		expect(metadata.message).toContain('cloud-metadata')
		const scheme = await refused(`${base}/redirect-file`, policy(['127.0.0.1']))
		expect(scheme.message).toContain('only http and https')
		const loop = await refused(`${base}/loop`, policy(['127.0.0.1'], { maxRedirects: 3 }))
		expect(loop.message).toContain('more than 3 redirects')
	})

	it('refuses cloud-metadata addresses even when the allow-list covers them', async () => {
		expect(refusal('169.254.169.254', '169.254.169.254', parseAllowList(['0.0.0.0/0']))).toContain('cloud-metadata')
		expect(refusal('fd00:ec2::254', 'x', parseAllowList(['::/0']))).toContain('cloud-metadata')
		expect(refusal('::ffff:169.254.169.254', 'x', parseAllowList([]))).toContain('cloud-metadata')
	})

	it('refuses private, link-local, CGNAT, ULA and unspecified addresses, and allows public ones', () => {
		const none = parseAllowList([])
		for (const address of [
			'10.1.2.3',
			'172.16.0.1',
			'192.168.1.1',
			'169.254.1.1',
			'100.64.0.1',
			'fc00::1',
			'fe80::1',
			'0.0.0.0',
			'::1',
			'::ffff:127.0.0.1',
		]) {
			expect(refusal(address, 'host', none)).not.toBeNull()
		}
		expect(refusal('93.184.216.34', 'example.com', none)).toBeNull()
		expect(refusal('2606:2800:220:1:248:1893:25c8:1946', 'example.com', none)).toBeNull()
		expect(refusal('10.1.2.3', 'wiki.corp.example', parseAllowList(['*.corp.example']))).toBeNull()
		expect(refusal('10.1.2.3', 'corp.example.evil', parseAllowList(['*.corp.example']))).not.toBeNull()
	})

	it('refuses other schemes and URLs with credentials', async () => {
		expect((await refused('file:///etc/passwd', policy([]))).message).toContain('only http and https')
		expect((await refused('ftp://example.com/x', policy([]))).message).toContain('only http and https')
		expect((await refused(`http://user:pw@127.0.0.1:${server.port}/`, policy(['127.0.0.1']))).permanent).toBe(true)
	})

	it('stops at the size limit, also for a compressed body', async () => {
		const big = await refused(`${base}/big`, policy(['127.0.0.1'], { maxBytes: 1000 }))
		expect(big).toMatchObject({ permanent: true })
		expect(big.message).toContain('larger than 1000 bytes')
		const bomb = await refused(`${base}/gzip-bomb`, policy(['127.0.0.1'], { maxBytes: 100_000 }))
		expect(bomb.message).toContain('larger than 100000 bytes')
		const gzip = await fetchUrl(`${base}/gzip`, policy(['127.0.0.1']))
		expect(new TextDecoder().decode(gzip.body)).toBe('compressed words')
	})

	it('stops at the time limit, as a failure worth retrying', async () => {
		const slow = await refused(`${base}/slow`, policy(['127.0.0.1'], { timeoutMs: 200 }))
		expect(slow).toMatchObject({ permanent: false })
		expect(slow.message).toContain('longer than 200 ms')
	})

	it('tells permanent answers (404) from transient ones (503)', async () => {
		expect(await refused(`${base}/missing`, policy(['127.0.0.1']))).toMatchObject({ permanent: true })
		const down = await refused(`${base}/down`, policy(['127.0.0.1']))
		expect(down).toMatchObject({ permanent: false })
		expect(down.message).toContain('503')
	})

	it('takes the file name from Content-Disposition or the path', async () => {
		expect((await fetchUrl(`${base}/named`, policy(['127.0.0.1']))).fileName).toBe('report.pdf')
		expect((await fetchUrl(`${base}/page`, policy(['127.0.0.1']))).fileName).toBe('page')
	})

	it('connects over https to the checked address while verifying the certificate of the host name', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'pinned-tls-'))
		try {
			// A self-signed certificate for the made-up name the resolver maps to loopback.
			const made = Bun.spawnSync(
				['openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=pinned.test'].concat([
					'-addext',
					'subjectAltName=DNS:pinned.test',
					'-keyout',
					'key.pem',
					'-out',
					'cert.pem',
				]),
				{ cwd: dir, stdin: 'ignore', stdout: 'ignore', stderr: 'pipe' },
			)
			expect(made.exitCode).toBe(0)
			const tls = Bun.serve({
				port: 0,
				hostname: '127.0.0.1',
				tls: { key: Bun.file(join(dir, 'key.pem')), cert: Bun.file(join(dir, 'cert.pem')) },
				fetch: (request) => new Response(`secure answer for ${request.headers.get('host')}`),
			})
			try {
				// Asynchronously: this process serves the TLS answers while the child fetches.
				const run = async (trust: boolean) => {
					const child = Bun.spawn(
						[process.execPath, `${import.meta.dir}/../../testkit/scripts/fetch-pinned-https.ts`, String(tls.port)],
						{
							env: { ...process.env, ...(trust ? { NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') } : {}) },
							stdout: 'pipe',
							stderr: 'ignore',
						},
					)
					const output = await new Response(child.stdout).text()
					await child.exited
					return output.trim()
				}
				expect(await run(true)).toBe(`secure answer for pinned.test:${tls.port}`)
				expect(await run(false)).toContain('error:')
			} finally {
				tls.stop(true)
			}
		} finally {
			rmSync(dir, { recursive: true, force: true })
		}
	}, 30_000)

	it('refuses a malformed allow-list entry', () => {
		expect(() => parseAllowList(['10.0.0.0/99'])).toThrow('not a valid CIDR')
		expect(() => parseAllowList(['http://x'])).toThrow('MEMORY_URL_ALLOWLIST')
	})
})
