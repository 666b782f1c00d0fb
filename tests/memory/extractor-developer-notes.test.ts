import { beforeAll, describe, expect, it } from 'bun:test'
import { createLogger, type PluginContext } from '../../core/index.ts'
import { extractorRules } from '../../plugins/extractor-rules/index.ts'

const extractor = extractorRules()
beforeAll(() => extractor.init?.({ logger: createLogger('silent'), env: {} } as unknown as PluginContext))

/**
 * Developer-style notes, the kind a coding agent's memory plugin (opencode-supermemory) stores, beside the chat
 * corpora of the other extractor tests: dotted names, file names, versions, URLs and inline code end no sentence,
 * and backticked code stays as written.
 */
const NOTES: [note: string, statements: string[]][] = [
	[
		'This project uses Bun, not Node.js; run tests with `bun test`.',
		['This project uses Bun, not Node.js; run tests with `bun test`'],
	],
	['Config lives in tsconfig.json and biome.json.', ['Config lives in tsconfig.json and biome.json']],
	[
		'We pin TypeScript 5.9.2 because 6.0 broke the decorators.',
		['We pin TypeScript 5.9.2 because 6.0 broke the decorators'],
	],
	[
		'The API docs are at https://docs.example.com/v2/api.html. The team reviews them every sprint.',
		['The API docs are at https://docs.example.com/v2/api.html', 'The team reviews them every sprint'],
	],
	[
		'Use `app.listen()` in server/main.ts instead of `Bun.serve`.',
		['Use `app.listen()` in server/main.ts instead of `Bun.serve`'],
	],
	['The ORM is drizzle-orm v0.30.1.', ['The ORM is drizzle-orm v0.30.1']],
	['Copy .env.example to .env before starting the server.', ['Copy .env.example to .env before starting the server']],
	[
		'The user prefers tabs over spaces, e.g. in every TypeScript file.',
		['The user prefers tabs over spaces, e.g. in every TypeScript file'],
	],
	[
		'Migrations live in db/migrations/ and run with `bun run migrate`.',
		['Migrations live in db/migrations/ and run with `bun run migrate`'],
	],
	[
		'Dr. Alvarez owns the billing service at billing.internal.example.com.',
		['Dr. Alvarez owns the billing service at billing.internal.example.com'],
	],
	['The CI runs on Node 20.11.1 and Bun 1.4.5.', ['The CI runs on Node 20.11.1 and Bun 1.4.5']],
	['Never call `process.exit()` inside a test.', ['Never call `process.exit()` inside a test']],
	[
		'Errors are logged with pino.info() and shipped to Grafana.',
		['Errors are logged with pino.info() and shipped to Grafana'],
	],
]

describe('extractor-rules on developer notes', () => {
	for (const [note, statements] of NOTES) {
		it(`keeps names, versions, URLs and code whole: ${note}`, async () => {
			const candidates = await extractor.extract({
				documentId: 'notes',
				containerTag: 'opencode_project',
				text: note,
				turns: null,
				date: '2026-11-26',
				entityContext: null,
				chunks: [],
			})
			expect(candidates.map((candidate) => candidate.content)).toEqual(statements)
		})
	}
})
