import { Elysia } from 'elysia'
import { requireUnrestricted } from '../../auth/restriction.ts'
import { bearerAuth } from '../auth.ts'
import type { RouteDeps } from '../route-deps.ts'
import { errorResponses } from '../schemas/common.ts'
import {
	ResetBody,
	ResetResponse,
	SettingsPatchResponse,
	SettingsView,
	settingsPatchBody,
} from '../schemas/settings.ts'

const detail = { tags: ['settings'] }

export function settingsRoutes({ verify, settings, containers, connections }: RouteDeps) {
	return new Elysia({ prefix: '/v3/settings' })
		.use(bearerAuth(verify))
		.get(
			'',
			({ scope, principal }) => {
				requireUnrestricted(principal, 'reading settings')
				return settings.get(scope)
			},
			{
				response: { 200: SettingsView, ...errorResponses },
				detail: { ...detail, summary: 'Organization settings (client secrets masked)' },
			},
		)
		.patch(
			'',
			async ({ body, scope, principal }) => {
				requireUnrestricted(principal, 'changing settings')
				const updated = await settings.update(scope, body)
				// New bucket definitions: existing memories are re-sorted in the background.
				if (body.profileBuckets !== undefined) await containers.orgBucketsChanged(scope)
				return { ...(await settings.identity(scope)), updated }
			},
			{
				body: settingsPatchBody(settings.settingsKeys),
				response: { 200: SettingsPatchResponse, ...errorResponses },
				detail: {
					...detail,
					summary:
						"Update organization settings; enabling a provider's custom OAuth credentials applies to new connections only",
				},
			},
		)
		.post(
			'/reset',
			async ({ body, scope, principal }) => {
				requireUnrestricted(principal, 'resetting the organization')
				await settings.assertResetConfirmation(scope, body.confirmation)
				// Connections first: their schedules and webhooks would otherwise import again into the emptied organization.
				const deletedConnections = await connections.deleteAll(scope)
				const { deletedDocuments, deletedMemoryRows, deletedTags } = await settings.reset(scope, body.confirmation)
				return {
					success: true as const,
					deletedConnections,
					deletedDocumentBatches: deletedDocuments,
					deletedDocumentsApprox: deletedDocuments,
					deletedMemoryRows,
					deletedExtraSpaces: deletedTags,
					clearedDefaultSpaceContext: true,
					clearedBrainMemoryRegistry: true,
					settingsReset: true,
				}
			},
			{
				body: ResetBody,
				response: { 200: ResetResponse, ...errorResponses },
				detail: { ...detail, summary: "Delete all of the organization's content and settings (needs confirmation)" },
			},
		)
}
