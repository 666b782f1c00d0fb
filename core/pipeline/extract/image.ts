import { dirname, join } from 'node:path'
import { imageSize } from 'image-size'
import type { Worker } from 'tesseract.js'
import { PermanentStageError } from '../../errors.ts'
import { normalizeExtractedText } from './text.ts'

/** Larger images are refused before decoding: a few KB of PNG can ask for gigabytes of pixels. */
const MAX_PIXELS = 40_000_000
/** An idle OCR engine gives its memory back after this long. */
const IDLE_MS = 60_000

/** The English model from the npm package @tesseract.js-data/eng: OCR never downloads anything. */
const LANGUAGE_DIR = join(
	dirname(Bun.resolveSync('@tesseract.js-data/eng/package.json', import.meta.dir)),
	'4.0.0_best_int',
)

export interface Ocr {
	/** The text in an image (PNG, JPEG, WebP, BMP). */
	recognize(bytes: Uint8Array): Promise<string>
	close(): Promise<void>
}

/**
 * Offline OCR with tesseract.js (WebAssembly Tesseract). One engine is started on first use and shared; images are
 * read one at a time. An image it cannot read fails its document permanently and the engine is started afresh.
 */
export function createOcr(): Ocr {
	let worker: Promise<Worker> | null = null
	let queue: Promise<unknown> = Promise.resolve()
	let idle: ReturnType<typeof setTimeout> | null = null

	const stop = async () => {
		const running = worker
		worker = null
		if (running) await (await running.catch(() => null))?.terminate().catch(() => {})
	}
	const start = () => {
		worker ??= import('tesseract.js').then(({ createWorker, OEM }) =>
			createWorker('eng', OEM.LSTM_ONLY, {
				langPath: LANGUAGE_DIR,
				gzip: true,
				cacheMethod: 'none',
				logger: () => {},
				errorHandler: () => {},
			}),
		)
		return worker
	}

	const recognize = async (bytes: Uint8Array): Promise<string> => {
		checkDimensions(bytes)
		if (idle) clearTimeout(idle)
		try {
			const engine = await start()
			const { data } = await engine.recognize(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
			return normalizeExtractedText(data.text)
		} catch (error) {
			await stop()
			if (error instanceof PermanentStageError) throw error
			throw new PermanentStageError(`the image could not be read: ${error instanceof Error ? error.message : error}`)
		} finally {
			idle = setTimeout(() => void stop(), IDLE_MS)
			idle.unref?.()
		}
	}

	return {
		recognize(bytes) {
			const result = queue.then(() => recognize(bytes))
			queue = result.catch(() => {})
			return result
		},
		async close() {
			if (idle) clearTimeout(idle)
			await queue
			await stop()
		},
	}
}

function checkDimensions(bytes: Uint8Array) {
	let size: { width?: number; height?: number }
	try {
		size = imageSize(bytes)
	} catch {
		throw new PermanentStageError('the image is malformed (its size cannot be read)')
	}
	const pixels = (size.width ?? 0) * (size.height ?? 0)
	if (pixels === 0) throw new PermanentStageError('the image is malformed (it has no pixels)')
	if (pixels > MAX_PIXELS) {
		throw new PermanentStageError(`the image is ${size.width}×${size.height} pixels; the limit is ${MAX_PIXELS} pixels`)
	}
}
