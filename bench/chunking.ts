/**
 * Peak resident memory and time of chunking one large text (`chunkTextPacked`, as the worker thread runs it), each
 * input in a fresh `bun` process: plain text of 12-word lines (what `hostile-inputs.ts` uploads), markdown with a
 * heading every ~50 lines, and a chat transcript. `--root DIR` measures another checkout's chunker.
 *
 *   bun bench/chunking.ts [--root ../main] [--mb 50] [--quick] [--only plain,markdown,transcript] [--piece-m 2]
 *
 * Prints a Markdown table; `peak growth` is the peak resident memory (VmHWM, reset once the text is built) over the
 * resident memory before chunking.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const args = process.argv.slice(2)
const option = (name: string, fallback: string) => {
	const at = args.indexOf(`--${name}`)
	return at >= 0 ? args[at + 1]! : fallback
}
const root = option('root', join(import.meta.dir, '..'))
const megabytes = Number(option('mb', args.includes('--quick') ? '10' : '50'))
const kinds = option('only', 'plain,markdown,transcript').split(',')
/** Piece length in millions of characters (this checkout's chunker only; default its PIECE_CHARS). */
const pieceMillions = option('piece-m', '')

const WORDS = ['apple', 'river', 'stone', 'green', 'market', 'window', 'silver', 'garden']
const twelveWords = (shift: number) => `${Array.from({ length: 12 }, (_, i) => WORDS[(i + shift) % 8]).join(' ')}.`

function generate(kind: string, size: number): string {
	const lines: string[] = []
	let length = 0
	for (let i = 0; length < size; i++) {
		let line: string
		if (kind === 'plain') line = twelveWords(0)
		else if (kind === 'markdown')
			line = i % 50 === 0 ? `${'#'.repeat(1 + ((i / 50) % 3))} Topic ${i / 50}` : i % 10 === 5 ? '' : twelveWords(i)
		else line = `${i % 2 === 0 ? 'Alice' : 'Bob'}: ${twelveWords(i)}`
		lines.push(line)
		length += line.length + 1
	}
	return lines.join('\n').slice(0, size)
}

/** Runs in the child: chunks the text and prints its figures. */
async function child(kind: string) {
	const chunker = await import(join(root, 'core/pipeline/chunker.ts'))
	const chunkTextPacked = pieceMillions
		? (text: string) => chunker.chunkTextPacked(text, {}, Number(pieceMillions) * 1e6)
		: chunker.chunkTextPacked
	const text = generate(kind, megabytes * 1024 * 1024)
	Bun.gc(true)
	// Resets the peak (VmHWM) to the current RSS, so generating the text is not counted.
	writeFileSync('/proc/self/clear_refs', '5')
	const before = rss()
	const started = performance.now()
	const packed = chunkTextPacked(text)
	const seconds = (performance.now() - started) / 1000
	console.log(
		JSON.stringify({
			kind,
			megabytes,
			chunks: packed.lengths.length,
			seconds: Number(seconds.toFixed(2)),
			rssBeforeMb: before,
			peakRssMb: peakRss(),
			peakGrowthMb: peakRss() - before,
		}),
	)
}

const status = () => readFileSync('/proc/self/status', 'utf8')
const rss = () => Math.round(Number(/VmRSS:\s+(\d+)/.exec(status())?.[1]) / 1024)
const peakRss = () => Math.round(Number(/VmHWM:\s+(\d+)/.exec(status())?.[1]) / 1024)

if (args[0] === '--child') await child(args[1]!)
else {
	console.log(`Chunking ${megabytes} MB, ${root}, ${new Date().toISOString()}\n`)
	console.log('| text | chunks | seconds | RSS before MB | peak RSS MB | peak growth MB |')
	console.log('| --- | ---: | ---: | ---: | ---: | ---: |')
	for (const kind of kinds) {
		const proc = Bun.spawn([process.execPath, import.meta.path, '--child', kind, ...args], { stdout: 'pipe' })
		const out = (await new Response(proc.stdout).text()).trim()
		if ((await proc.exited) !== 0 || !out.startsWith('{')) {
			console.log(`| ${kind} | failed: ${out.split('\n').at(-1)?.slice(0, 100)} | | | | |`)
			continue
		}
		const row = JSON.parse(out.split('\n').at(-1)!)
		console.log(
			`| ${kind} | ${row.chunks} | ${row.seconds} | ${row.rssBeforeMb} | ${row.peakRssMb} | ${row.peakGrowthMb} |`,
		)
	}
}
