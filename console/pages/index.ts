import type { FunctionComponent } from 'preact'
import type { Principal } from '../lib/session.ts'
import { ConnectionsPage } from './connections.ts'
import { ContainerTagsPage } from './container-tags.ts'
import { DocumentsPage } from './documents.ts'
import { FeedbackPage } from './feedback.ts'
import { GraphPage } from './graph.ts'
import { KeysPage } from './keys.ts'
import { McpPage } from './mcp.ts'
import { OverviewPage } from './overview.ts'
import { PlaygroundPage } from './playground.ts'
import { SettingsPage } from './settings.ts'
import { UsagePage } from './usage.ts'

export interface PageProps {
	/** The route after the page's own segment (`#/documents/abc` gives ['abc']). */
	route: string[]
	principal: Principal
}

export interface Page {
	path: string
	title: string
	component: FunctionComponent<PageProps>
	/** Pages about the whole organization, hidden from keys restricted to some container tags (the API refuses them). */
	unrestrictedOnly?: boolean
}

export const PAGES: Page[] = [
	{ path: '', title: 'Overview', component: OverviewPage },
	{ path: 'documents', title: 'Documents', component: DocumentsPage },
	{ path: 'container-tags', title: 'Container tags', component: ContainerTagsPage },
	{ path: 'graph', title: 'Memory graph', component: GraphPage },
	{ path: 'playground', title: 'Playground', component: PlaygroundPage },
	{ path: 'connections', title: 'Connections', component: ConnectionsPage, unrestrictedOnly: true },
	{ path: 'usage', title: 'Usage', component: UsagePage, unrestrictedOnly: true },
	{ path: 'keys', title: 'API keys', component: KeysPage, unrestrictedOnly: true },
	{ path: 'settings', title: 'Settings', component: SettingsPage, unrestrictedOnly: true },
	{ path: 'feedback', title: 'Feedback', component: FeedbackPage, unrestrictedOnly: true },
	{ path: 'mcp', title: 'MCP setup', component: McpPage },
]
