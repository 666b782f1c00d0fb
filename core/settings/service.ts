import type { Scope } from '../domain/types.ts'
import { badRequest } from '../errors.ts'
import type { Storage } from '../plugins/storage.ts'
import {
	APP_OPTIONS,
	clientIdField,
	clientSecretField,
	customKeyEnabledField,
	maskSecret,
	orgSlug,
	SECRET_APP_OPTIONS,
	settingsFields,
} from './fields.ts'
import { isSealed, type SecretBox } from './secret-box.ts'

/** Stored beside the settings, never returned: when each provider's custom credentials were (last) enabled. */
const ENABLED_AT = '_customKeyEnabledAt'

export type SettingsPatch = Record<string, unknown>

/**
 * Organization settings. Client secrets are sealed before they reach storage and masked on the way out; enabling a
 * provider's custom credentials records when, so only connections created after that use them.
 */
export function createSettingsService(deps: {
	storage: Storage
	secrets: SecretBox
	/** The `auth.settingsKey` of every registered OAuth connector that lets organizations bring their own app. */
	settingsKeys: readonly string[]
}) {
	const { storage, secrets, settingsKeys } = deps
	const fields = settingsFields(settingsKeys)

	function present(stored: Record<string, unknown>): Record<string, unknown> {
		const view: Record<string, unknown> = {}
		for (const field of fields) {
			const value = stored[field] ?? (field === 'profileBuckets' ? [] : null)
			view[field] = isSealed(value) ? maskSecret(secrets.open(value)) : value
		}
		return view
	}

	/** Refuses a reset whose confirmation is not the organization's slug. */
	async function assertResetConfirmation(scope: Scope, confirmation: string) {
		const org = await storage.orgs.byId(scope.orgId)
		const slug = orgSlug(org?.name ?? '')
		if (confirmation !== slug) {
			throw badRequest(`confirmation must be the organization's slug ("${slug}") to confirm deleting all content`)
		}
	}

	return {
		settingsKeys,

		async get(scope: Scope) {
			return present(await storage.settings.get(scope.orgId))
		},

		/**
		 * The application a new connection should use when the organization enabled its own, or null for the service's.
		 * `settingsKey` is the prefix a connector declares (`github` reads `githubClientId`, ...).
		 */
		async customCredentials(scope: Scope, settingsKey: string) {
			const stored = await storage.settings.get(scope.orgId)
			if (stored[`${settingsKey}CustomKeyEnabled`] !== true) return null
			const secret = stored[`${settingsKey}ClientSecret`]
			const options: Record<string, string> = {}
			for (const option of APP_OPTIONS[settingsKey] ?? []) {
				const raw = stored[`${settingsKey}${option}`]
				const value = isSealed(raw) ? secrets.open(raw) : raw
				if (typeof value === 'string' && value) options[option.charAt(0).toLowerCase() + option.slice(1)] = value
			}
			return {
				clientId: String(stored[`${settingsKey}ClientId`]),
				clientSecret: isSealed(secret) ? secrets.open(secret) : String(secret ?? ''),
				options,
				enabledAt: String((stored[ENABLED_AT] as Record<string, string> | undefined)?.[settingsKey] ?? ''),
			}
		},

		async update(scope: Scope, patch: SettingsPatch) {
			if ('workspacePrompt' in patch && Object.keys(patch).length > 1) {
				throw badRequest('workspacePrompt must be sent on its own, without other settings')
			}
			const stored = await storage.settings.get(scope.orgId)
			const next: Record<string, unknown> = { ...stored }
			for (const [field, value] of Object.entries(patch)) {
				const isSecret = SECRET_APP_OPTIONS.has(field) || settingsKeys.some((key) => clientSecretField(key) === field)
				next[field] = isSecret && typeof value === 'string' ? secrets.seal(value) : value
			}
			const enabledAt = { ...((stored[ENABLED_AT] as Record<string, string> | undefined) ?? {}) }
			for (const provider of settingsKeys) {
				if (next[customKeyEnabledField(provider)] !== true) continue
				if (!next[clientIdField(provider)] || !next[clientSecretField(provider)]) {
					throw badRequest(
						`${customKeyEnabledField(provider)} needs ${clientIdField(provider)} and ${clientSecretField(provider)}`,
					)
				}
				const changed =
					stored[customKeyEnabledField(provider)] !== true ||
					clientIdField(provider) in patch ||
					clientSecretField(provider) in patch
				if (changed) enabledAt[provider] = new Date().toISOString()
			}
			next[ENABLED_AT] = enabledAt
			await storage.settings.put(scope.orgId, next)
			return present(next)
		},

		assertResetConfirmation,

		async reset(scope: Scope, confirmation: string) {
			await assertResetConfirmation(scope, confirmation)
			// Memory rows (every version) and container-tag settings first, so the count covers all of them.
			const cleared = await storage.containers.clearOrg(scope.orgId)
			const { deletedIds } = await storage.documents.deleteMany(scope, { all: true })
			await storage.settings.put(scope.orgId, {})
			return { deletedDocuments: deletedIds.length, deletedMemoryRows: cleared.memoryRows, deletedTags: cleared.tags }
		},

		async identity(scope: Scope) {
			const org = await storage.orgs.byId(scope.orgId)
			return { orgId: scope.orgId, orgSlug: orgSlug(org?.name ?? '') }
		},
	}
}

export type SettingsService = ReturnType<typeof createSettingsService>
