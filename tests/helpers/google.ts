import type { GoogleEmulator } from '../emulators/google.ts'

/** An access token of the emulator's account, through its consent page and token endpoint (as a user would). */
export async function emulatorAccessToken(google: GoogleEmulator): Promise<string> {
	const redirectUri = 'http://localhost/callback'
	const consent = new URL(`${google.url}/o/oauth2/v2/auth`)
	consent.search = new URLSearchParams({
		client_id: google.clientId,
		redirect_uri: redirectUri,
		response_type: 'code',
		scope: 'https://www.googleapis.com/auth/drive.readonly',
		access_type: 'offline',
	}).toString()
	const answer = await fetch(consent, { redirect: 'manual' })
	const code = new URL(answer.headers.get('location')!).searchParams.get('code')!
	const token = await fetch(`${google.url}/token`, {
		method: 'POST',
		headers: { 'content-type': 'application/x-www-form-urlencoded' },
		body: new URLSearchParams({
			grant_type: 'authorization_code',
			code,
			redirect_uri: redirectUri,
			client_id: google.clientId,
			client_secret: google.clientSecret,
		}),
	})
	return ((await token.json()) as { access_token: string }).access_token
}
