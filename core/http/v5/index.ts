import { Elysia } from 'elysia'
import type { RouteDeps } from '../route-deps.ts'
import { connectorRoutes } from './connectors.ts'
import { documentRoutes } from './documents.ts'
import { feedbackRoutes } from './feedback.ts'
import { listRoutes } from './list.ts'
import { memoryRoutes } from './memories.ts'
import { namespaceRoutes } from './namespaces.ts'
import { profileRoutes } from './profile.ts'
import { searchRoutes } from './search.ts'

/** Every v5 operation under one prefix (the SDKs call the root; some users put /v5 in their base URL). */
function v5Api(deps: RouteDeps, prefix: '' | '/v5') {
	return new Elysia({ prefix, name: `v5-api${prefix}` })
		.use(feedbackRoutes())
		.use(documentRoutes(deps))
		.use(searchRoutes(deps))
		.use(profileRoutes(deps))
		.use(memoryRoutes(deps))
		.use(listRoutes(deps))
		.use(namespaceRoutes(deps))
		.use(connectorRoutes(deps))
}

/** The v5 API at the root paths the SDKs call and again under /v5. */
export function v5Routes(deps: RouteDeps): Elysia {
	// Typed as a plain plugin: carrying every route's types twice into the app's type costs the checker minutes.
	return new Elysia({ name: 'v5-api' }).use(v5Api(deps, '')).use(v5Api(deps, '/v5')) as unknown as Elysia
}
