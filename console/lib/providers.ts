import { api } from './api.ts'

/** A registered connector, as GET /v3/connections/providers lists it: the console offers exactly these. */
export interface Provider {
	provider: string
	displayName: string
	authType: 'oauth2' | 'credentials' | 'none'
	fields: { key: string; label: string; secret: boolean }[]
	settingsKey: string | null
	serverAppConfigured: boolean
	/** Whether the connector chooses what it syncs among the provider's resources. */
	resources: boolean
}

export const loadProviders = () => api.get<Provider[]>('/v3/connections/providers')
