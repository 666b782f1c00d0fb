import type { Plugin } from '../core/index.ts'

/**
 * The four connectors whose custom OAuth applications the published settings API names (githubClientId,
 * googleDriveClientId, notionClientId, onedriveClientId): a test of those settings registers them, as the default
 * deployment does. Loaded lazily: their SDKs are large.
 */
export async function publishedOAuthConnectors(): Promise<Plugin[]> {
	const [{ github }, { googleDrive }, { notion }, { onedrive }] = await Promise.all([
		import('../connectors/github/index.ts'),
		import('../connectors/google-drive/index.ts'),
		import('../connectors/notion/index.ts'),
		import('../connectors/onedrive/index.ts'),
	])
	return [github(), googleDrive(), notion(), onedrive()]
}
