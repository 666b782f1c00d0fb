import { Elysia } from 'elysia'
import type { RouteDeps } from '../route-deps.ts'
import { connectorRoutes } from './connectors.ts'
import { documentRoutes } from './documents.ts'
import { feedbackRoutes } from './feedback.ts'
import { fileRoutes } from './files.ts'
import { listRoutes } from './list.ts'
import { memoryRoutes } from './memories.ts'
import { namespaceRoutes } from './namespaces.ts'
import { profileRoutes } from './profile.ts'
import { searchRoutes } from './search.ts'

/** Every v5 operation under one prefix (the SDKs call the root; some users put /v5 in their base URL). */
function v5Api(deps: RouteDeps, prefix: '' | '/v5'): Elysia {
	// Each group typed as a plain plugin: the checker cannot represent the union of every route's types.
	const groups = [
		feedbackRoutes(deps),
		fileRoutes(deps),
		documentRoutes(deps),
		searchRoutes(deps),
		profileRoutes(deps),
		memoryRoutes(deps),
		listRoutes(deps),
		namespaceRoutes(deps),
		connectorRoutes(deps),
	] as unknown as Elysia[]
	let api = new Elysia({ prefix, name: `v5-api${prefix}` })
	for (const group of groups) api = api.use(group) as unknown as typeof api
	return api as unknown as Elysia
}

/** The v5 API at the root paths the SDKs call and again under /v5. */
export function v5Routes(deps: RouteDeps): Elysia {
	// Typed as a plain plugin: carrying every route's types twice into the app's type costs the checker minutes.
	return new Elysia({ name: 'v5-api' }).use(v5Api(deps, '')).use(v5Api(deps, '/v5'))
}
