// Shared by the google-drive and gmail connectors; not a provider itself.
export {
	connectionAuth,
	endsRun,
	type GoogleAuthClient,
	googleApiOptions,
	reasonOf,
	statusOf,
} from './client.ts'
export {
	type GoogleEndpointOptions,
	type GoogleEndpoints,
	googleEndpoints,
	googleEndpointsFromEnv,
	rootUrlOption,
} from './endpoints.ts'
export { type GoogleOAuthOptions, googleOAuth } from './oauth.ts'
