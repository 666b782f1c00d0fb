import type { Logger } from '../logger.ts'
import { PLUGIN_API_VERSION, type PluginBase } from './contract.ts'

/**
 * The connector contract: a declaration (provider id, auth, schedule, optional webhooks and resources) plus one
 * `sync(ctx, cursor)` async generator. Core owns OAuth, tokens, scheduling, retries, cursor persistence,
 * documentLimit, webhooks and renewals; a connector only reads its provider and yields what it found.
 */

/** A cursor is a flat JSON object, persisted by core whenever the connector yields a checkpoint. */
export type CursorValue = Record<string, string | number | boolean | null>

/** OAuth 2.0 authorization code flow, run by core. Every URL is configuration (enterprise servers, emulators). */
export interface OAuth2Auth {
	type: 'oauth2'
	authorizeUrl: string
	tokenUrl: string
	scopes: string[]
	/** Send an S256 code challenge (RFC 7636). */
	pkce: boolean
	/** Extra query parameters of the authorization URL (e.g. `access_type: offline`). */
	authorizeParams?: Record<string, string>
	/** Send the scopes again with each refresh (the Microsoft identity platform wants them). */
	refreshWithScopes?: boolean
	/** Environment variables holding the server-wide application, e.g. GITHUB_CLIENT_ID / GITHUB_CLIENT_SECRET. */
	env: { clientId: string; clientSecret: string }
	/**
	 * The organization settings prefix of a custom application (`github` reads `githubClientId`,
	 * `githubClientSecret`, `githubCustomKeyEnabled`); omit when organizations cannot bring their own.
	 */
	settingsKey?: string
	/** RFC 7009 revocation endpoint; or `revoke` for a provider with its own call. Neither: nothing is revoked. */
	revokeUrl?: string
	revoke?(app: OAuthApp, tokens: TokenSet): Promise<void>
	/**
	 * Who authorized: `email` is shown as the connection's email; `accountId` is the provider's stable account id,
	 * which tells whether two connections hold the same grant (see `grantGroup`).
	 */
	identity?(tokens: TokenSet): Promise<{ email: string | null; accountId?: string | null }>
	/**
	 * Scopes without which the connection cannot work. The callback compares them with the scopes granted (a provider
	 * with granular consent, like Google, grants fewer when the user unticks some) and refuses the authorization,
	 * naming the missing permission. Defaults to none.
	 */
	requiredScopes?: string[]
	/**
	 * Connectors sharing one OAuth application and one grant per account (Drive and Gmail both say `google`): deleting
	 * a connection revokes the grant only when no other live connection of the group holds it for the same account.
	 */
	grantGroup?: string
}

/** Credentials the user gives when creating the connection (an API key), read from the create body's `metadata`. */
export interface CredentialsAuth {
	type: 'credentials'
	fields: { key: string; label: string; secret: boolean }[]
	/** Checks the credentials with the provider before the connection is created; throws a message to show the user. */
	validate?(credentials: Record<string, string>): Promise<{ email?: string | null } | undefined>
}

/** No credentials at all (a public web crawler). */
export interface NoAuth {
	type: 'none'
}

export type AuthSpec = OAuth2Auth | CredentialsAuth | NoAuth

export interface OAuthApp {
	clientId: string
	clientSecret: string
}

export interface TokenSet {
	accessToken: string
	refreshToken: string | null
	/** ISO time; null when the token does not expire. */
	expiresAt: string | null
	scopes: string[]
}

/** When core syncs a connection on its own. Jittered per connection; `null` interval: only on demand and webhooks. */
export interface ScheduleSpec {
	everyHours: number | null
}

/** A document the provider holds, as it should be stored. */
export interface ExternalDocument {
	/** Stable id at the provider (a file path, a message id); unique within the connection. */
	externalId: string
	/** Changes whenever the item changes (a blob sha, an etag): the same version is skipped without reading it. */
	version?: string
	title: string | null
	/** Text (Markdown welcome) or a URL the pipeline fetches; omitted when `file` carries the item. */
	content?: string
	/**
	 * A file's bytes (a Drive PDF, an email attachment): stored as the document's original and read by the service's
	 * file ingestion, like an upload. The type is detected from the bytes; an unsupported one fails the item.
	 */
	file?: ExternalFile
	url: string | null
	/** Merged into the document's metadata beside `provider`, `externalId` and `url`. */
	metadata?: Record<string, string | number | boolean>
	/** The provider's type label (`github_markdown`), kept as metadata `sourceType`. */
	sourceType?: string
}

export interface ExternalFile {
	bytes: Uint8Array
	/** The file's name at the provider (its extension helps tell text kinds apart). */
	name: string
	/** The provider's media type label; the bytes decide when they disagree. */
	mimeType?: string
}

/** Whether a failed item is worth reading again. */
export type ItemRetry = 'transient' | 'permanent'

/** What a sync yields. Core applies each event as it comes; a checkpoint is persisted after everything before it. */
export type SyncEvent<Cursor extends CursorValue = CursorValue> =
	| { type: 'upsert'; document: ExternalDocument }
	/** The item is there and has not changed since it was imported (counted as skipped). */
	| { type: 'unchanged'; externalId: string }
	/** The provider says the item is gone. */
	| { type: 'delete'; externalId: string }
	/**
	 * One item could not be read: recorded on the run, which goes on. A `transient` failure (the default) is read
	 * again on later runs, with backoff, a bounded number of times; a `permanent` one is recorded and not retried.
	 */
	| { type: 'failure'; externalId: string | null; error: string; retry?: ItemRetry }
	/**
	 * The set of items that exist now in one scope (a full listing), for providers without deletion signals (set
	 * difference reconciliation). Core deletes imported items missing from it only when `complete` is true and the
	 * listing is trustworthy: no `scope-failed` for that scope and no failure naming no item during the run, and not more than
	 * MEMORY_CONNECTOR_MAX_DELETE_SHARE of a scope of 20 or more items at once. With `prefix`, only imported ids
	 * starting with it are compared (one repository of several); `scope` names it in the run's notes (defaults to
	 * `prefix`).
	 */
	| { type: 'present'; externalIds: string[]; prefix?: string; complete?: boolean; scope?: string }
	/**
	 * The provider refused or cut short the listing of one scope (a repository, a folder, a data source, a site):
	 * that scope's deletions are held back for this run, which goes on.
	 */
	| { type: 'scope-failed'; scope: string; error: string }
	| { type: 'checkpoint'; cursor: Cursor }

/** What a connector gets while it works for one connection. It never sees another connection's tokens. */
export interface SyncContext<Settings = Record<string, unknown>> {
	connectionId: string
	/** The connection's configuration: chosen resources and options (set through `configure`). */
	settings: Settings
	/** A valid access token (refreshed by core when it is about to expire). OAuth connectors only. */
	accessToken(): Promise<string>
	/**
	 * The provider refused `refused` although it has no known expiry (Notion's tokens carry none): a fresh one
	 * through the refresh token, shared with concurrent callers. Throws ConnectorAuthError when there is no refresh
	 * token or the provider refuses it. OAuth connectors only.
	 */
	refreshAccessToken?(refused: string): Promise<string>
	/**
	 * Runs `call` with the current access token (a credential connector: its first secret credential); when it fails
	 * with a 401 (an error whose `status` or `statusCode` is 401, or ConnectorAuthError) the token is refreshed once
	 * against the refused one and `call` runs again. Only a refused refresh, or a 401 with the fresh token, throws
	 * ConnectorAuthError (which expires the connection).
	 */
	withToken<T>(call: (token: string) => Promise<T>): Promise<T>
	/**
	 * The OAuth application the connection was authorized with: the server's, or the organization's own with its
	 * options from the settings (`pubsubTopic`). OAuth connectors only.
	 */
	app?: { clientId: string; source: 'server' | 'custom'; options: Record<string, string> }
	/**
	 * The other active connections of this provider holding a push subscription with `routeKey` (one mailbox watched
	 * by several connections), with their settings and the subscription's data: a provider keeping one subscription
	 * per route key shares it instead of replacing or stopping it.
	 */
	routeSharers?(routeKey: string): Promise<{ settings: Record<string, unknown>; data: Record<string, string> }[]>
	/** The credentials given at creation. Credential connectors only. */
	credentials: Record<string, string>
	/** The connection's create-time metadata (without credentials). */
	metadata: Record<string, string | number | boolean>
	/**
	 * The connection's documentLimit, for connectors whose reading is itself bounded by it (a crawler's page budget).
	 * Core enforces the limit whether or not a connector reads it.
	 */
	documentLimit?: number
	/** What started this run: its schedule, an on-demand import, a webhook. Absent outside the runtime. */
	trigger?: 'manual' | 'schedule' | 'webhook'
	/** True for the versions the connection already holds: lets a connector skip reading unchanged items. */
	hasVersion(externalId: string, version: string): Promise<boolean>
	/**
	 * The external ids the connection holds: lets a connector whose listings are not exhaustive confirm, item by item,
	 * that what a listing left out is gone before it deletes it.
	 */
	importedIds?(): Promise<string[]>
	/**
	 * Turns shared by every process on the service's store (a crawler's requests to one host): `take` answers 0 when
	 * the turn is this caller's (the last one ended at least `gapMs` ago), held for `holdMs` at most, else the
	 * milliseconds to wait before asking again; `end` gives it up and sets when the next turn may start. Absent in
	 * tests without a store.
	 */
	turns?: {
		take(key: string, holdMs: number, gapMs: number): Promise<number>
		end(key: string, nextInMs: number): Promise<void>
	}
	logger: Logger
	/**
	 * Aborts when the run must stop: the job nears its expiry or the service stops. A connector stops reading and
	 * returns (or throws); core keeps the last checkpoint and the next run resumes from it.
	 */
	signal: AbortSignal
}

export interface ResourcePage {
	resources: Record<string, unknown>[]
	totalCount?: number
}

/** Resources a user picks before syncing (GitHub repositories, Drive folders). */
export interface ResourcesSpec<Settings> {
	list(
		ctx: SyncContext<Settings>,
		query: { page: number; perPage: number; parentId: string | null },
	): Promise<ResourcePage>
	/**
	 * Turns the chosen resources into the connection's settings; throws an Error with a message for the user on a
	 * bad choice. The connection then re-subscribes its webhooks and syncs.
	 */
	configure(ctx: SyncContext<Settings>, resources: Record<string, unknown>[]): Promise<Settings>
}

/** An incoming notification, as the webhook endpoint received it. */
export interface WebhookRequest {
	headers: Headers
	/** The raw body (signatures are computed over it). */
	body: string
	query: URLSearchParams
	/** The address it arrived at: a subscription made again points at its origin, unless MEMORY_PUBLIC_URL is set. */
	url?: string
}

/** The application a subscription's connection was authorized with, as `WebhookSpec.verifyApp` sees it. */
export interface WebhookApp {
	/** `server`: the environment's application; `custom`: the organization's own (settings). */
	source: 'server' | 'custom'
	clientId: string
	orgId: string
	/** A custom application's current options from its organization's settings (`pushServiceAccount`). */
	options: Record<string, string>
}

/** A push subscription (a repository hook, a watch channel) core keeps, renews and stops. */
export interface Subscription {
	/** The provider's id of the subscription (hook id, channel id). */
	externalId: string
	/** What a notification carries to find this subscription (often the same id). */
	routeKey: string
	/** ISO time it lapses; null when it never does. */
	expiresAt: string | null
	/** Provider data needed to renew or stop it (a resource id, a repository). */
	data?: Record<string, string>
}

/** Subscriptions made, and the scopes whose subscription the provider refused. */
export interface SubscribeResult {
	subscriptions: Subscription[]
	failures: { scope: string; error: string }[]
}

/** Route keys a notification may name unless its connector declares more (`WebhookSpec.maxRouteKeys`). */
export const DEFAULT_WEBHOOK_ROUTE_KEYS = 10
/** Body size a notification may have unless its connector declares more (`WebhookSpec.maxBodyBytes`). */
export const DEFAULT_WEBHOOK_BODY_BYTES = 1024 * 1024

export interface WebhookSpec<Settings> {
	/** Route keys of the subscriptions the notification may belong to (read before it is verified). */
	routeKeys(request: WebhookRequest): string[]
	/**
	 * Most distinct route keys the provider ever puts in one notification: beyond it the notification is refused (400)
	 * before any lookup. DEFAULT_WEBHOOK_ROUTE_KEYS unless given.
	 */
	maxRouteKeys?: number
	/**
	 * Largest body the provider ever sends: a larger one is refused (413) before it is parsed. At most the service's
	 * body limit; DEFAULT_WEBHOOK_BODY_BYTES unless given.
	 */
	maxBodyBytes?: number
	/**
	 * `routeKeys` reads headers only (GitHub's hook id): the subscriptions are looked up before the body is read, and a
	 * notification naming none is refused unread.
	 */
	routedByHeaders?: boolean
	/** A handshake to answer as is (a validation token echo), or null for a notification. */
	handshake?(request: WebhookRequest): Response | null
	/**
	 * Checks what needs no subscription's secret (a token the provider signed, an integration-wide signing secret)
	 * before any subscription is looked up, so a forged notification costs no query. With it, `verify` may be left out.
	 */
	authenticate?(request: WebhookRequest): boolean | Promise<boolean>
	/** Checks the signature or token with the subscription's secret (constant time). */
	verify?(request: WebhookRequest, secret: string): boolean | Promise<boolean>
	/**
	 * For providers whose deliveries are signed by something of the application rather than of the subscription
	 * (Notion's verification token, the service account of a Gmail push subscription): whether the delivery was signed
	 * by the application the subscription's connection was authorized with. A subscription is taken only when this
	 * holds too, so one organization's signer never reaches another organization's connections.
	 */
	verifyApp?(request: WebhookRequest, app: WebhookApp): boolean | Promise<boolean>
	/** The delivery's unique id: a second delivery with the same id is a replay and refused. */
	deliveryId?(request: WebhookRequest): string | null
	/** Whether this notification asks for a sync of the connection (a push to another branch does not). */
	wantsSync?(request: WebhookRequest, settings: Settings): boolean
	/**
	 * A verified notification about the subscription itself rather than the data (Microsoft Graph's lifecycle
	 * events): `renew` extends it now, `resubscribe` makes the connection's subscriptions again; null for others.
	 */
	lifecycle?(request: WebhookRequest, subscription: Subscription): 'renew' | 'resubscribe' | null
	/**
	 * For providers that can verify a delivery without a subscription's secret (a Pub/Sub push's OIDC token): a
	 * verified delivery for an unknown or removed subscription is then acknowledged (2xx) instead of refused, so the
	 * provider stops redelivering it. Without it, a spec with `authenticate` acknowledges whatever passed that.
	 */
	verifyWithoutSubscription?(request: WebhookRequest): Promise<boolean>
	/**
	 * Creates the provider's subscriptions for the connection's settings; `secret` signs their deliveries. A provider
	 * with one subscription per scope returns those it made and the scopes that refused: every one made is stored.
	 */
	subscribe?(
		ctx: SyncContext<Settings>,
		input: { url: string; secret: string },
	): Promise<Subscription[] | SubscribeResult>
	/**
	 * Extends a subscription before it lapses; or, for a provider whose subscriptions cannot be extended (Drive's
	 * watch channels), makes a new one signed with the same `secret`, stops the old one and returns the
	 * `replacement`, which core stores in the old one's place.
	 */
	renew?(
		ctx: SyncContext<Settings>,
		subscription: Subscription,
		input: { secret: string },
	): Promise<{ expiresAt: string | null } | { replacement: Subscription }>
	/** Stops a subscription (connection deleted or reconfigured). */
	unsubscribe?(ctx: SyncContext<Settings>, subscription: Subscription): Promise<void>
}

export interface ConnectorPlugin<Cursor extends CursorValue = CursorValue, Settings = Record<string, unknown>>
	extends PluginBase<'connector'> {
	/** The provider id used in the API's paths, e.g. `github`; unique. */
	provider: string
	displayName: string
	auth: AuthSpec
	schedule: ScheduleSpec
	/** Settings of a new connection, before any `configure`. */
	defaultSettings?: Settings
	/**
	 * Checks the create body's `metadata` before anything is stored (a crawler's start URL); throws an Error whose
	 * message the API answers with a 400.
	 */
	validateMetadata?(metadata: Record<string, unknown>): void | Promise<void>
	/** What a user fills in at creation, sent as the create body's `metadata` (a crawler's start URL); the console asks. */
	metadataFields?: { key: string; label: string; secret: boolean }[]
	resources?: ResourcesSpec<Settings>
	webhook?: WebhookSpec<Settings>
	/**
	 * Reads the provider from `cursor` (null: from the beginning) and yields what changed. Throw
	 * `ConnectorAuthError` (or an error whose `status` is 401) when the grant was revoked.
	 */
	sync(ctx: SyncContext<Settings>, cursor: Cursor | null): AsyncIterable<SyncEvent<Cursor>>
	/**
	 * Reads one item again (a failed item due for retry, at the start of a run): the document, `gone` when the
	 * provider no longer has it, or `unchanged`. Throwing means the attempt failed again (an ItemError says whether
	 * to keep trying). Without it, core runs a full listing (a null cursor) while retries are due.
	 */
	readItem?(ctx: SyncContext<Settings>, externalId: string): Promise<ExternalDocument | 'gone' | 'unchanged'>
}

/** The provider refused the connection's credentials: the connection needs authorizing again. */
export class ConnectorAuthError extends Error {}

/** A connector of any cursor and settings type, as lists and the runtime hold them. */
// biome-ignore lint/suspicious/noExplicitAny: the runtime passes each connector only what it declared itself
export type AnyConnector = ConnectorPlugin<any, any>

/** A connector as its author writes it: `apiVersion` and `kind` are filled in, `name` defaults to `provider`. */
export type ConnectorDeclaration<Cursor extends CursorValue, Settings> = Omit<
	ConnectorPlugin<Cursor, Settings>,
	'apiVersion' | 'kind' | 'name'
> &
	Partial<Pick<ConnectorPlugin<Cursor, Settings>, 'apiVersion' | 'kind' | 'name'>>

/** Typed helper for connector authors: `export const feed = (o) => defineConnector({ provider: 'feed', ... })`. */
export function defineConnector<Cursor extends CursorValue, Settings>(
	connector: ConnectorDeclaration<Cursor, Settings>,
): ConnectorPlugin<Cursor, Settings> {
	return { apiVersion: PLUGIN_API_VERSION, kind: 'connector', name: connector.provider, ...connector }
}

/** Provider ids are URL path segments. */
export const PROVIDER_ID_PATTERN = /^[a-z][a-z0-9-]{1,40}$/
