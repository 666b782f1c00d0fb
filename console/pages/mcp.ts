import { CodeBlock } from '../components/ui.ts'
import { html } from '../lib/html.ts'
import type { PageProps } from './index.ts'

/** How to point common MCP clients at this service's MCP endpoint (Streamable HTTP at /mcp, bearer key). */
export function McpPage(_: PageProps) {
	const url = `${location.origin}/mcp`
	const header = 'Authorization: Bearer YOUR_API_KEY'
	const json = (config: unknown) => JSON.stringify(config, null, 2)
	return html`<section aria-labelledby="mcp-title">
		<h1 id="mcp-title">MCP setup</h1>
		<p>The service speaks the Model Context Protocol over Streamable HTTP at <code>${url}</code>, with the same API keys
			as the REST API (a key restricted to container tags stays restricted). Replace <code>YOUR_API_KEY</code> with a key
			from the API keys page.</p>
		<${CodeBlock} label="Claude Code" code=${`claude mcp add --transport http memory ${url} --header "${header}"`} />
		<${CodeBlock} label="Cursor (.cursor/mcp.json)" code=${json({ mcpServers: { memory: { url, headers: { Authorization: 'Bearer YOUR_API_KEY' } } } })} />
		<${CodeBlock} label="VS Code (.vscode/mcp.json)" code=${json({ servers: { memory: { type: 'http', url, headers: { Authorization: 'Bearer YOUR_API_KEY' } } } })} />
		<${CodeBlock} label="Claude Desktop (claude_desktop_config.json, through mcp-remote)" code=${json({ mcpServers: { memory: { command: 'npx', args: ['-y', 'mcp-remote', url, '--header', header] } } })} />
	</section>`
}
