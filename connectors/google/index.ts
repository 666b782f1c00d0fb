// Shared by the google-drive and gmail connectors; not a provider itself.
export {
	classifyGoogleError,
	endsRun,
	type GoogleAuthClient,
	type GoogleCalls,
	googleApiOptions,
	googleCalls,
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
