import type { ConnectionRecord } from '../plugins/connection-storage.ts'
import type { OAuthApp, TokenSet } from '../plugins/connector.ts'
import type { SecretBox } from '../settings/secret-box.ts'

/** What a connection keeps sealed: its tokens (OAuth) or the credentials it was created with. */
export interface ConnectionSecrets {
	tokens?: TokenSet
	credentials?: Record<string, string>
}

export interface SealedApp extends OAuthApp {
	/** `server`: the environment's application; `custom`: the organization's own (settings). */
	source: 'server' | 'custom'
	/** A custom application's options from the organization settings (`pubsubTopic`). */
	options?: Record<string, string>
}

export function openSecrets(box: SecretBox, connection: Pick<ConnectionRecord, 'secrets'>): ConnectionSecrets {
	return connection.secrets ? (JSON.parse(box.open(connection.secrets)) as ConnectionSecrets) : {}
}

export const sealSecrets = (box: SecretBox, secrets: ConnectionSecrets) => box.seal(JSON.stringify(secrets))

export function openApp(box: SecretBox, connection: Pick<ConnectionRecord, 'app'>): SealedApp | null {
	return connection.app ? (JSON.parse(box.open(connection.app)) as SealedApp) : null
}

export const sealApp = (box: SecretBox, app: SealedApp) => box.seal(JSON.stringify(app))
