import type { ServiceSettings } from '../config/settings.ts'
import { StartupError } from '../errors.ts'
import type { FetchPolicy } from '../pipeline/extract/fetch-url.ts'
import { createOcr } from '../pipeline/extract/image.ts'
import { parseAllowList } from '../pipeline/extract/url-guard.ts'
import type { ExtractionDeps } from '../pipeline/extract.ts'
import type { FileStore } from '../plugins/files.ts'

/** The URL fetch policy from the settings; a malformed allow-list stops the start. */
export function fetchPolicyFrom(settings: ServiceSettings): FetchPolicy {
	try {
		return {
			allow: parseAllowList(settings.urlAllowlist),
			maxBytes: settings.fetchMaxBytes,
			timeoutMs: settings.fetchTimeoutMs,
		}
	} catch (error) {
		throw new StartupError((error as Error).message)
	}
}

/** What the extracting stage needs; `close` stops the OCR engine. */
export function createExtraction(
	settings: ServiceSettings,
	files: FileStore,
	fetchPolicy: FetchPolicy,
): ExtractionDeps & { close(): Promise<void> } {
	const ocr = createOcr()
	return { files, fetchPolicy, maxUncompressedBytes: settings.maxUncompressedBytes, ocr, close: () => ocr.close() }
}
