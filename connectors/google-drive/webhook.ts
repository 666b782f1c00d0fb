import { createHmac, timingSafeEqual } from 'node:crypto'
import type { Subscription, SyncContext, WebhookRequest, WebhookSpec } from '../../core/index.ts'
import { statusOf } from '../google/index.ts'
import { driveFor } from './client.ts'
import type { GoogleDriveSettings } from './options.ts'

/**
 * A channel's token is an HMAC of its id under the subscription's secret: one constant-time comparison checks the
 * token and that it belongs to that channel id.
 */
export const channelToken = (secret: string, channelId: string) =>
	createHmac('sha256', secret).update(channelId).digest('base64url')

function tokenMatches(request: WebhookRequest, secret: string): boolean {
	const channelId = request.headers.get('x-goog-channel-id') ?? ''
	const token = Buffer.from(request.headers.get('x-goog-channel-token') ?? '')
	const expected = Buffer.from(channelToken(secret, channelId))
	return channelId !== '' && token.length === expected.length && timingSafeEqual(token, expected)
}

/**
 * `changes.watch` channels: one per connection on the account's changes feed, shared drives included. A channel
 * cannot be extended, so renewal opens a new one and then stops the old one.
 */
export function driveWebhook(apiUrl: string | undefined, lifetimeMs: number): WebhookSpec<GoogleDriveSettings> {
	async function watch(ctx: SyncContext<GoogleDriveSettings>, url: string, secret: string): Promise<Subscription> {
		const drive = await driveFor(ctx, apiUrl)
		const { data: start } = await drive.changes.getStartPageToken({ supportsAllDrives: true })
		const id = crypto.randomUUID()
		const { data } = await drive.changes.watch({
			pageToken: start.startPageToken!,
			supportsAllDrives: true,
			includeItemsFromAllDrives: true,
			includeRemoved: true,
			requestBody: {
				id,
				type: 'web_hook',
				address: url,
				token: channelToken(secret, id),
				expiration: String(Date.now() + lifetimeMs),
			},
		})
		const expiration = Number(data.expiration)
		return {
			externalId: id,
			routeKey: id,
			expiresAt: Number.isFinite(expiration) && expiration > 0 ? new Date(expiration).toISOString() : null,
			data: { resourceId: data.resourceId ?? '', address: url },
		}
	}

	async function stop(ctx: SyncContext<GoogleDriveSettings>, subscription: Subscription) {
		const drive = await driveFor(ctx, apiUrl)
		try {
			await drive.channels.stop({
				requestBody: { id: subscription.externalId, resourceId: subscription.data?.resourceId },
			})
		} catch (error) {
			// A channel that already lapsed is gone at Google too.
			if (statusOf(error) !== 404) throw error
		}
	}

	return {
		routeKeys: (request) => {
			const id = request.headers.get('x-goog-channel-id')
			return id ? [id] : []
		},
		maxRouteKeys: 1,
		verify: tokenMatches,
		deliveryId: (request) => {
			const number = request.headers.get('x-goog-message-number')
			return number ? `${request.headers.get('x-goog-channel-id')}:${number}` : null
		},
		// The `sync` message only says the channel works; changes come as `change`.
		wantsSync: (request) => request.headers.get('x-goog-resource-state') !== 'sync',
		// A refused channel (Google watches only public HTTPS addresses) is logged by core, which syncs on schedule.
		subscribe: async (ctx, { url, secret }) => [await watch(ctx, url, secret)],
		async renew(ctx, subscription, { secret }) {
			const address = subscription.data?.address
			if (!address) throw new Error('the channel has no address to renew it at')
			const replacement = await watch(ctx, address, secret)
			try {
				await stop(ctx, subscription)
			} catch (error) {
				ctx.logger.warn('could not stop a renewed Drive channel', {
					channel: subscription.externalId,
					error: String(error),
				})
			}
			return { replacement }
		},
		unsubscribe: stop,
	}
}
