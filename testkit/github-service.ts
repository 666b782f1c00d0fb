import { github } from '../connectors/github/index.ts'
import type { GithubEmulator } from './emulators/github.ts'

/** Test-service options for the GitHub connector on its emulator, with the server-wide OAuth app and no extractor. */
export function githubOnEmulator(emulator: GithubEmulator) {
	return {
		env: { GITHUB_CLIENT_ID: emulator.clientId, GITHUB_CLIENT_SECRET: emulator.clientSecret },
		plugins: [github({ apiUrl: emulator.url, webUrl: emulator.url })],
		extractor: null,
	}
}
