interface RouteView {
	method: string
	path: string
	hooks?: { body?: unknown }
}

interface Operation {
	requestBody?: { content?: Record<string, unknown> }
}

/**
 * Fills the request bodies the OpenAPI plugin leaves empty. It names a body's media types from the route's named
 * parsers and skips function parsers, so a route whose only parse hook is bearerAuth's key check (a function, run
 * before the body is read) is documented with no media type at all. Those routes take JSON.
 */
export function fillRequestBodies(spec: { paths?: Record<string, Record<string, Operation>> }, routes: RouteView[]) {
	for (const route of routes) {
		if (!route.hooks?.body) continue
		const path = route.path.replace(/:(\w+)/g, '{$1}')
		const content = spec.paths?.[path]?.[route.method.toLowerCase()]?.requestBody?.content
		if (content && Object.keys(content).length === 0) content['application/json'] = { schema: route.hooks.body }
	}
}
