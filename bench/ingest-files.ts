/**
 * File ingestion: throughput (documents per second from upload to done) and time to done per document (median and
 * p95) for a mix of generated files uploaded through POST /v3/documents/file: PDF, DOCX, PPTX, XLSX, CSV, HTML,
 * Markdown, JSON and PNG (OCR). Each type runs on its own, then all types mixed. The server is its own process
 * (`bun server/main.ts`), on the embedded store, and on PostgreSQL too when BENCH_DATABASE_URL is set.
 *
 *   bun bench/ingest-files.ts [--driver embedded|postgres] [--quick]
 */
import { fixture, sampleDocx, samplePdf, samplePptx, sampleXlsx } from '../testkit/sample-files.ts'
import { random, TextGenerator } from '../testkit/text.ts'
import { type DocumentState, waitUntilProcessed } from './lib/documents.ts'
import { BenchClient } from './lib/http.ts'
import { printMachine } from './lib/machine.ts'
import { startServer } from './lib/server.ts'
import { summarize } from './lib/stats.ts'
import { createStore, type Driver, driversToRun, prepareStore, QUICK } from './lib/store.ts'
import { type Cell, fixed, heading, ms, printTable } from './lib/table.ts'
import { loadVocabulary } from './lib/vocabulary.ts'

const PER_TYPE = QUICK ? 10 : 40
const UPLOAD_CONCURRENCY = 8
const DRAIN_TIMEOUT_MS = 15 * 60_000

interface SampleFile {
	name: string
	type: string
	bytes: Uint8Array
}

type Maker = (text: TextGenerator, i: number) => Promise<SampleFile>

const encode = (text: string) => new TextEncoder().encode(text)

/** One maker per type: a few paragraphs of generated prose in that format (the PNG is the OCR fixture). */
const MAKERS: Record<string, Maker> = {
	pdf: async (text, i) => ({
		name: `report-${i}.pdf`,
		type: 'application/pdf',
		bytes: await samplePdf(
			`Report ${i}`,
			Array.from({ length: 30 }, () => text.sentence().slice(0, 90)),
		),
	}),
	docx: async (text, i) => ({
		name: `notes-${i}.docx`,
		type: '',
		bytes: await sampleDocx(`Notes ${i}`, [text.prose(1500), '## Details', text.prose(1500)]),
	}),
	pptx: async (text, i) => ({
		name: `deck-${i}.pptx`,
		type: '',
		bytes: await samplePptx(Array.from({ length: 5 }, () => [text.sentence(), text.sentence()])),
	}),
	xlsx: async (text, i) => ({
		name: `sheet-${i}.xlsx`,
		type: '',
		bytes: sampleXlsx([
			{
				name: `Sheet ${i}`,
				rows: [['Item', 'Note', 'Count'], ...Array.from({ length: 50 }, (_, r) => [`item ${r}`, text.sentence(), r])],
			},
		]),
	}),
	csv: async (text, i) => ({
		name: `table-${i}.csv`,
		type: 'text/csv',
		bytes: encode(
			`item,note,count\n${Array.from({ length: 50 }, (_, r) => `item ${r},"${text.sentence().replaceAll('"', '')}",${r}`).join('\n')}`,
		),
	}),
	html: async (text, i) => ({
		name: `page-${i}.html`,
		type: 'text/html',
		bytes: encode(
			`<!doctype html><html><head><title>Page ${i}</title></head><body><nav>Home | About</nav><article><h1>Page ${i}</h1>${Array.from({ length: 6 }, () => `<p>${text.prose(500)}</p>`).join('')}</article><footer>Contact</footer></body></html>`,
		),
	}),
	markdown: async (text, i) => ({
		name: `readme-${i}.md`,
		type: 'text/markdown',
		bytes: encode(`# Readme ${i}\n\n${text.prose(1500)}\n\n## Usage\n\n${text.prose(1500)}`),
	}),
	json: async (text, i) => ({
		name: `record-${i}.json`,
		type: 'application/json',
		bytes: encode(
			JSON.stringify({
				title: `Record ${i}`,
				owner: { name: text.sentence().slice(0, 30), team: `team-${i % 7}` },
				entries: Array.from({ length: 20 }, (_, r) => ({ n: r, note: text.sentence() })),
			}),
		),
	}),
	png: async (_text, i) => ({ name: `scan-${i}.png`, type: 'image/png', bytes: await fixture('ocr-invoice.png') }),
}

async function upload(url: string, key: string, file: SampleFile, containerTag: string): Promise<void> {
	const form = new FormData()
	form.append('file', new File([file.bytes], file.name, { type: file.type }))
	form.append('containerTag', containerTag)
	const response = await fetch(`${url}/v3/documents/file`, {
		method: 'POST',
		headers: { authorization: `Bearer ${key}` },
		body: form,
	})
	if (response.status !== 200)
		throw new Error(`${file.name}: upload answered ${response.status} ${await response.text()}`)
}

async function uploadAll(url: string, key: string, files: SampleFile[], containerTag: string): Promise<void> {
	let next = 0
	const worker = async () => {
		for (let i = next++; i < files.length; i = next++) await upload(url, key, files[i]!, containerTag)
	}
	await Promise.all(Array.from({ length: UPLOAD_CONCURRENCY }, worker))
}

interface Row {
	driver: Driver
	run: string
	documents: number
	bytes: number
	seconds: number
	failed: number
	toDone: number[]
}

/** Server-side time from creation to the last update (done) of each document. */
const toDoneMs = (documents: DocumentState[]) =>
	documents.filter((d) => d.status === 'done').map((d) => Date.parse(d.updatedAt) - Date.parse(d.createdAt))

async function measure(
	driver: Driver,
	run: string,
	files: SampleFile[],
	url: string,
	client: BenchClient,
	key: string,
): Promise<Row> {
	const containerTag = `bench-files-${run}`
	const started = performance.now()
	await uploadAll(url, key, files, containerTag)
	const documents = await waitUntilProcessed(client, containerTag, files.length, DRAIN_TIMEOUT_MS)
	const seconds = (performance.now() - started) / 1000
	return {
		driver,
		run,
		documents: files.length,
		bytes: files.reduce((sum, file) => sum + file.bytes.length, 0),
		seconds,
		failed: documents.filter((d) => d.status === 'failed').length,
		toDone: toDoneMs(documents),
	}
}

async function benchDriver(driver: Driver, sets: Record<string, SampleFile[]>, rows: Row[]): Promise<void> {
	const store = await createStore(driver)
	try {
		const { key } = await prepareStore(store)
		const server = await startServer(store)
		try {
			const client = new BenchClient(server.url, key)
			for (const [type, files] of Object.entries(sets)) {
				rows.push(await measure(driver, type, files, server.url, client, key))
			}
			const mixed = Object.values(sets)
				.flat()
				.map((file, i) => ({ ...file, name: `mixed-${i}-${file.name}` }))
			// Interleaved, so every type is in flight at once.
			const shuffle = random(7)
			mixed.sort(() => shuffle() - 0.5)
			rows.push(await measure(driver, 'mixed', mixed, server.url, client, key))
		} finally {
			await server.stop()
		}
	} finally {
		await store.dispose()
	}
}

async function main() {
	const drivers = driversToRun()
	heading('File ingestion')
	await printMachine(process.env.BENCH_DATABASE_URL)
	const text = new TextGenerator(11, await loadVocabulary())
	const sets: Record<string, SampleFile[]> = {}
	for (const [type, make] of Object.entries(MAKERS)) {
		sets[type] = []
		for (let i = 0; i < PER_TYPE; i++) sets[type]!.push(await make(text, i))
	}
	const rows: Row[] = []
	for (const driver of drivers) await benchDriver(driver, sets, rows)
	const cells: Cell[][] = rows.map((row) => {
		const summary = summarize(row.toDone)
		return [
			row.driver,
			row.run,
			row.documents,
			`${fixed(row.bytes / row.documents / 1024)} KB`,
			fixed(row.documents / row.seconds),
			ms(summary.p50),
			ms(summary.p95),
			row.failed,
		]
	})
	printTable(
		`Upload to done (${PER_TYPE} files per type, ${UPLOAD_CONCURRENCY} concurrent uploads, worker concurrency 4)`,
		['store', 'files', 'documents', 'mean size', 'docs/s to done', 'to done p50 ms', 'to done p95 ms', 'failed'],
		cells,
	)
}

await main()
