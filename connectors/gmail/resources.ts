import type { ResourcePage, SyncContext } from '../../core/index.ts'
import { gmailClient } from './client.ts'
import { type GmailSettings, INBOX } from './options.ts'

/** Labels that are never worth importing on their own. */
const HIDDEN = new Set(['TRASH', 'SPAM', 'DRAFT', 'UNREAD', 'CHAT'])

/** The mailbox's labels (INBOX is always imported; the others are chosen). */
export async function listLabels(apiUrl: string | undefined, ctx: SyncContext<GmailSettings>): Promise<ResourcePage> {
	const api = await gmailClient(apiUrl, ctx)
	const { data } = await api.call(() => api.gmail.users.labels.list({ userId: 'me' }))
	const resources = (data.labels ?? [])
		.filter((label) => label.id && !HIDDEN.has(label.id) && !label.id.startsWith('CATEGORY_'))
		.map((label) => ({
			id: label.id!,
			name: label.name ?? label.id!,
			type: label.type ?? 'user',
			selected: label.id === INBOX || ctx.settings.labels.includes(label.id!),
		}))
	return { resources }
}

/** `[{ id: "Label_1" }, ...]` become the labels imported besides INBOX; a resource may carry `includeAttachments`. */
export async function configureLabels(
	settings: GmailSettings,
	resources: Record<string, unknown>[],
): Promise<GmailSettings> {
	const labels = resources.map((resource, index) => {
		const id = resource.id
		if (typeof id !== 'string' || !/^[\w-]{1,200}$/.test(id)) {
			throw new Error(`resources[${index}].id must be a Gmail label id (such as "Label_12" or "STARRED")`)
		}
		if (HIDDEN.has(id)) throw new Error(`resources[${index}]: the ${id} label cannot be imported`)
		return id
	})
	const flag = resources.find((resource) => typeof resource.includeAttachments === 'boolean')?.includeAttachments
	return {
		labels: [...new Set(labels.filter((id) => id !== INBOX))],
		includeAttachments: typeof flag === 'boolean' ? flag : settings.includeAttachments,
	}
}
