import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, chromium, type Page } from 'playwright-core'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Debian's Chromium (installed with apt on first use when missing, as .ci/run does), headless; the background-networking flags keep it from reaching out of a closed network. */
export function launchChromium(): Promise<Browser> {
	if (!existsSync(CHROMIUM) && !process.env.CHROMIUM_PATH) {
		const installed = Bun.spawnSync(['bash', join(import.meta.dir, '../.ci/chromium.sh')], { stderr: 'pipe' })
		if (installed.exitCode !== 0)
			throw new Error(`Chromium is missing and could not be installed:\n${installed.stderr}`)
	}
	return chromium.launch({
		executablePath: CHROMIUM,
		headless: true,
		args: [
			'--no-sandbox',
			'--disable-gpu',
			'--disable-quic',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
		],
	})
}

/** Screenshots are test artifacts (gitignored); MEMORY_DOCS_SCREENSHOTS=1 also refreshes the README's (docs/console-<name>.png). */
export const ARTIFACTS = join(import.meta.dir, '../tests/artifacts/console')
const DOCS = join(import.meta.dir, '../docs')

export async function screenshot(page: Page, name: string, options: { docs?: boolean } = {}): Promise<void> {
	mkdirSync(ARTIFACTS, { recursive: true })
	await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) })
	if (options.docs && process.env.MEMORY_DOCS_SCREENSHOTS === '1') {
		mkdirSync(DOCS, { recursive: true })
		await page.screenshot({ path: join(DOCS, `console-${name}.png`) })
	}
}
