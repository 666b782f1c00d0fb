/** Settings of content ingestion: uploads, URL fetching, originals and their signed URLs. */
export interface IngestSettings {
	/** Largest uploaded file, in bytes (413 above). */
	maxUploadBytes: number
	/** Largest body a URL fetch reads, in bytes; a larger one fails the document. */
	fetchMaxBytes: number
	/** Time a URL fetch may take in all, redirects included, in milliseconds. */
	fetchTimeoutMs: number
	/**
	 * Hosts and address ranges that URL fetching may reach although they are private, loopback or link-local: host
	 * names (`wiki.internal`, `*.corp.example`), addresses and CIDRs (`10.1.2.3`, `10.0.0.0/8`, `::1`). Cloud-metadata
	 * addresses stay refused whatever the list says.
	 */
	urlAllowlist: string[]
	/** Largest total a compressed office file (DOCX, PPTX, XLSX) may inflate to; more fails it as a zip bomb. */
	maxUncompressedBytes: number
	/**
	 * Time one attempt at a document may take to be read, split, embedded and have its memories extracted, in
	 * seconds; over it the document fails with that reason (not retried).
	 */
	documentTimeoutSeconds: number
	/** Growth of resident memory a document's parsing or memory extraction may cause, in MiB; over it the document fails. */
	documentMaxMemoryMb: number
	/** Where files-local keeps originals; null means `<dataDir>/files`. */
	filesDir: string | null
	/** Secret that signs file URLs; null means one generated once and kept in the store. */
	fileUrlSecret: string | null
	/** The address clients reach the service at (behind a proxy); null means the address of each request. */
	publicUrl: string | null
}

type Env = Record<string, string | undefined>
type Integer = (env: Env, name: string, fallback: number, min?: number, max?: number) => number

const MiB = 1024 * 1024

/** A document job expires after twice its budget (plus a minute), and the job queue keeps jobs 24 hours at most. */
export const MAX_DOCUMENT_TIMEOUT_SECONDS = 43_170

export function ingestSettingsFromEnv(env: Env, integer: Integer): IngestSettings {
	return {
		maxUploadBytes: integer(env, 'MEMORY_MAX_UPLOAD_BYTES', 50 * MiB, 1),
		fetchMaxBytes: integer(env, 'MEMORY_FETCH_MAX_BYTES', 25 * MiB, 1),
		fetchTimeoutMs: integer(env, 'MEMORY_FETCH_TIMEOUT_MS', 15_000, 1),
		urlAllowlist: (env.MEMORY_URL_ALLOWLIST ?? '')
			.split(/[\s,]+/)
			.map((entry) => entry.trim())
			.filter(Boolean),
		maxUncompressedBytes: integer(env, 'MEMORY_MAX_UNCOMPRESSED_BYTES', 200 * MiB, 1),
		documentTimeoutSeconds: integer(env, 'MEMORY_DOCUMENT_TIMEOUT_SECONDS', 900, 1, MAX_DOCUMENT_TIMEOUT_SECONDS),
		documentMaxMemoryMb: integer(env, 'MEMORY_DOCUMENT_MAX_MEMORY_MB', 768, 64),
		filesDir: env.MEMORY_FILES_DIR || null,
		fileUrlSecret: env.MEMORY_FILE_URL_SECRET || null,
		publicUrl: env.MEMORY_PUBLIC_URL ? env.MEMORY_PUBLIC_URL.replace(/\/+$/, '') : null,
	}
}
