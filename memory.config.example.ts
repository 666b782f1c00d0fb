/**
 * Copy to memory.config.ts to configure the service in code instead of environment variables.
 * `plugins` receives the defaults built from the environment (docs/configuration.md): keep them and swap or add.
 */
import { defineConfig } from './core/index.ts'
import { embedderOpenAI } from './plugins/embedder-openai/index.ts'

export default defineConfig({
	port: 8787,
	workerConcurrency: 8,
	plugins: (_settings, defaults) => [
		// Every default but the embedder: the extractor, the storage and the built-in connectors stay.
		...defaults.filter((plugin) => plugin.kind !== 'embedder'),
		// Any OpenAI-compatible endpoint: OpenAI, Ollama (http://localhost:11434/v1), vLLM, LM Studio, TEI.
		embedderOpenAI({ baseURL: 'http://localhost:11434/v1', model: 'nomic-embed-text', dimensions: 768 }),
	],
})
