import { ServiceError } from '../errors.ts'
import type { AnyConnector } from '../plugins/connector.ts'
import type { ConnectorDeps } from './deps.ts'

/** The connector serving `provider`, else a 404 naming the providers that are served. */
export function connectorFor(deps: Pick<ConnectorDeps, 'connectors'>, provider: string): AnyConnector {
	const connector = deps.connectors.get(provider)
	if (connector) return connector
	const known = [...deps.connectors.keys()].sort()
	throw new ServiceError(
		404,
		'Provider not found',
		`no connector serves "${provider}"; known providers: ${known.length > 0 ? known.join(', ') : 'none'}`,
	)
}
