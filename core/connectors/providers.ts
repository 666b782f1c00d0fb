import { HttpError } from '../errors.ts'
import type { AnyConnector } from '../plugins/connector.ts'
import type { ConnectorDeps } from './deps.ts'

export function unknownProvider(deps: Pick<ConnectorDeps, 'connectors'>, provider: string): HttpError {
	const known = [...deps.connectors.keys()].sort()
	return new HttpError(
		404,
		'Provider not found',
		`no connector serves "${provider}"; known providers: ${known.length > 0 ? known.join(', ') : 'none'}`,
	)
}

export function connectorFor(deps: Pick<ConnectorDeps, 'connectors'>, provider: string): AnyConnector {
	const connector = deps.connectors.get(provider)
	if (!connector) throw unknownProvider(deps, provider)
	return connector
}
