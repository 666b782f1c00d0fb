/**
 * Copy to memory.config.ts to configure the service in code instead of environment variables.
 * Without a `plugins` list the service builds it from the environment (see README).
 */
import { defineConfig, embeddedDatabaseDir } from './core/index.ts'
import { embedderOpenAI } from './plugins/embedder-openai/index.ts'
import { storagePostgres } from './plugins/storage-postgres/index.ts'

export default defineConfig({
	port: 8787,
	workerConcurrency: 8,
	plugins: (settings) => [
		storagePostgres(
			settings.databaseUrl ? { databaseUrl: settings.databaseUrl } : { dataDir: embeddedDatabaseDir(settings.dataDir) },
		),
		// Any OpenAI-compatible endpoint: OpenAI, Ollama (http://localhost:11434/v1), vLLM, LM Studio, TEI.
		embedderOpenAI({ baseURL: 'http://localhost:11434/v1', model: 'nomic-embed-text', dimensions: 768 }),
	],
})
