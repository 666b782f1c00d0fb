import type { Client } from '@microsoft/microsoft-graph-client'
import type { ResourcePage, SyncContext } from '../../core/index.ts'
import { graphClient, guarded, relativeLink, statusOf } from './client.ts'
import type { Endpoints, OnedriveSettings } from './options.ts'
import type { DriveItem, DrivePage } from './types.ts'

const FIELDS = 'id,name,folder,parentReference,lastModifiedDateTime,webUrl'

/** The folders in the drive's root, or in `parentId`: what a user chooses from. */
export async function listFolders(
	endpoints: Endpoints,
	ctx: SyncContext<OnedriveSettings>,
	query: { page: number; perPage: number; parentId: string | null },
): Promise<ResourcePage> {
	const client = await graphClient(endpoints, () => ctx.accessToken())
	const parent = query.parentId ? `/me/drive/items/${encodeURIComponent(query.parentId)}` : '/me/drive/root'
	const folders: DriveItem[] = []
	let link: string | undefined = `${parent}/children?$select=${FIELDS}&$top=200`
	while (link) {
		const page = (await guarded(() => client.api(relativeLink(link!, endpoints.graphUrl)).get())) as DrivePage
		folders.push(...(page.value ?? []).filter((item) => item.folder))
		link = page['@odata.nextLink']
	}
	const start = (query.page - 1) * query.perPage
	return {
		resources: folders.slice(start, start + query.perPage).map((folder) => ({
			id: folder.id,
			name: folder.name,
			type: 'folder',
			parentId: folder.parentReference?.id ?? null,
			childCount: folder.folder?.childCount ?? 0,
			lastModifiedDateTime: folder.lastModifiedDateTime ?? null,
			webUrl: folder.webUrl ?? null,
		})),
	}
}

/** `[{ id }]` of folders becomes the folders to sync (each checked to be a folder of the drive); `[]`: the whole drive. */
export async function configureFolders(
	endpoints: Endpoints,
	ctx: SyncContext<OnedriveSettings>,
	resources: Record<string, unknown>[],
): Promise<OnedriveSettings> {
	const client = await graphClient(endpoints, () => ctx.accessToken())
	const folders: OnedriveSettings['folders'] = []
	for (const [index, resource] of resources.entries()) {
		if (typeof resource.id !== 'string' || resource.id === '')
			throw new Error(`resources[${index}] needs the folder's id`)
		const item = await folderOf(client, resource.id)
		if (!item) throw new Error(`resources[${index}]: ${resource.id} is not a folder of this drive`)
		if (!folders.some((folder) => folder.id === item.id)) folders.push({ id: item.id, name: item.name ?? item.id })
	}
	return { folders }
}

async function folderOf(client: Client, id: string): Promise<DriveItem | null> {
	try {
		const item = (await guarded(() =>
			client
				.api(`/me/drive/items/${encodeURIComponent(id)}`)
				.select('id,name,folder,root')
				.get(),
		)) as DriveItem
		return item.folder || item.root ? item : null
	} catch (error) {
		if (statusOf(error) === 404 || statusOf(error) === 400) return null
		throw error
	}
}
