/** The same request as a curl command and as a call of the published `supermemory` client. */
export interface PlaygroundRequest {
	path: '/v3/search' | '/v4/search' | '/v4/profile'
	body: Record<string, unknown>
}

const CLIENT_METHODS: Record<PlaygroundRequest['path'], string> = {
	'/v3/search': 'client.search.documents',
	'/v4/search': 'client.search.memories',
	'/v4/profile': 'client.profile',
}

export function curlSnippet(origin: string, request: PlaygroundRequest): string {
	const body = JSON.stringify(request.body).replaceAll("'", "'\\''")
	return [
		`curl -s ${origin}${request.path} \\`,
		`  -H "authorization: Bearer $MEMORY_API_KEY" \\`,
		`  -H 'content-type: application/json' \\`,
		`  -d '${body}'`,
	].join('\n')
}

export function clientSnippet(origin: string, request: PlaygroundRequest): string {
	return [
		"import Supermemory from 'supermemory'",
		'',
		`const client = new Supermemory({ baseURL: '${origin}', apiKey: process.env.MEMORY_API_KEY })`,
		`const answer = await ${CLIENT_METHODS[request.path]}(${JSON.stringify(request.body, null, 2)})`,
	].join('\n')
}
