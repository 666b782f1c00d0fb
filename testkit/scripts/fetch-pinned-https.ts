/**
 * Run by url-fetch.test.ts in its own process (Bun reads NODE_EXTRA_CA_CERTS at startup): fetches
 * https://pinned.test:<port>/ through a resolver that maps the made-up name to loopback, trusting the test's
 * self-signed certificate for pinned.test. Prints the body, or the error.
 */
import { fetchUrl } from '../../core/pipeline/extract/fetch-url.ts'
import { parseAllowList } from '../../core/pipeline/extract/url-guard.ts'

const port = process.argv[2]
try {
	const fetched = await fetchUrl(`https://pinned.test:${port}/`, {
		allow: parseAllowList(['127.0.0.1']),
		maxBytes: 1_000_000,
		timeoutMs: 5_000,
		resolve: async () => ['127.0.0.1'],
	})
	console.log(new TextDecoder().decode(fetched.body))
} catch (error) {
	console.log(`error: ${(error as Error).message}`)
}
