import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { settingsFromEnv } from '../../core/config/settings.ts'
import { StartupError } from '../../core/errors.ts'
import { fetchPolicyFrom } from '../../core/files/extraction-parts.ts'
import { fileUrlSigner } from '../../core/files/signed-urls.ts'
import { createLogger } from '../../core/logger.ts'
import { validatePlugins } from '../../core/plugins/registry.ts'
import { filesLocal } from '../../plugins/files-local/index.ts'
import { withDefaultFiles } from '../../server/defaults.ts'

describe('files-local', () => {
	let dir: string
	const store = () => filesLocal({ dir })
	beforeAll(() => {
		dir = mkdtempSync(join(tmpdir(), 'files-local-'))
	})
	afterAll(() => rmSync(dir, { recursive: true, force: true }))

	it('stores bytes and streams by key, replacing what was there, and deletes them', async () => {
		const files = store()
		await files.init?.({ logger: createLogger('silent'), env: {}, vectorSpace: { id: 'x', dimensions: 1 } })
		await files.put('org1/abc', new TextEncoder().encode('first'), { contentType: 'text/plain' })
		await files.put('org1/abc', new TextEncoder().encode('second version'), { contentType: 'text/plain' })
		expect(new TextDecoder().decode((await files.get('org1/abc'))!)).toBe('second version')
		const streamed = await files.stream('org1/abc')
		expect(streamed!.size).toBe(14)
		expect(await new Response(streamed!.body).text()).toBe('second version')
		// Written beside the target and renamed: no partial files are left.
		expect(readdirSync(join(dir, 'org1'))).toEqual(['abc'])
		await files.delete('org1/abc')
		expect(await files.get('org1/abc')).toBeNull()
		expect(await files.stream('org1/abc')).toBeNull()
		await files.delete('org1/abc')
	})

	it('takes a stream as input', async () => {
		const files = store()
		const body = new Response('streamed in').body!
		await files.put('org2/s', body, { contentType: 'text/plain' })
		expect(new TextDecoder().decode((await files.get('org2/s'))!)).toBe('streamed in')
	})

	it('refuses keys that could leave its folder', async () => {
		const files = store()
		for (const key of ['../escape', 'a/../../b', '/abs', 'a//b', 'a/b.', '']) {
			await expect(files.put(key, new Uint8Array([1]), { contentType: 'x' })).rejects.toThrow('invalid file key')
		}
	})
})

describe('files plugin kind', () => {
	const files = (name: string) => ({ ...filesLocal({ dir: '/tmp/unused' }), name })
	const storage = { apiVersion: 1, kind: 'storage', name: 's' }
	const embedder = { apiVersion: 1, kind: 'embedder', name: 'e' }

	it('allows at most one files plugin', () => {
		expect(() => validatePlugins([storage, embedder, files('a'), files('b')])).toThrow('at most one files plugin')
		expect(validatePlugins([storage, embedder, files('a')])).toHaveLength(3)
	})

	it('adds files-local under the data directory when the list has none', async () => {
		const settings = settingsFromEnv({ MEMORY_DATA_DIR: '/srv/memory' })
		const list = await withDefaultFiles([storage, embedder] as never, settings)
		expect(list.map((plugin) => `${plugin.kind}:${plugin.name}`)).toEqual([
			'storage:s',
			'embedder:e',
			'files:files-local',
		])
		const own = files('s3')
		expect(await withDefaultFiles([storage, embedder, own] as never, settings)).toContain(own)
	})
})

describe('ingestion settings', () => {
	it('reads limits, the allow-list and file settings from the environment', () => {
		const settings = settingsFromEnv({
			MEMORY_MAX_UPLOAD_BYTES: '1000',
			MEMORY_URL_ALLOWLIST: 'wiki.internal, 10.0.0.0/8 ::1',
			MEMORY_PUBLIC_URL: 'https://memory.example.com/',
			MEMORY_FILES_DIR: '/files',
		})
		expect(settings).toMatchObject({
			maxUploadBytes: 1000,
			urlAllowlist: ['wiki.internal', '10.0.0.0/8', '::1'],
			publicUrl: 'https://memory.example.com',
			filesDir: '/files',
			fetchTimeoutMs: 15_000,
		})
		expect(() => settingsFromEnv({ MEMORY_MAX_UPLOAD_BYTES: 'lots' })).toThrow('MEMORY_MAX_UPLOAD_BYTES')
	})

	it('stops the start on a malformed allow-list entry', () => {
		const settings = settingsFromEnv({ MEMORY_URL_ALLOWLIST: '10.0.0.0/40' })
		expect(() => fetchPolicyFrom(settings)).toThrow(StartupError)
	})
})

describe('fileUrlSigner', () => {
	const signer = fileUrlSigner('secret')
	it('accepts its own signature until it expires, and nothing else', () => {
		const signature = signer.sign('doc', 'org/key', 2_000)
		expect(signer.verify('doc', 'org/key', 2_000, signature, 1_999)).toBe(true)
		expect(signer.verify('doc', 'org/key', 2_000, signature, 2_001)).toBe(false)
		expect(signer.verify('doc', 'org/other', 2_000, signature, 1_000)).toBe(false)
		expect(signer.verify('doc2', 'org/key', 2_000, signature, 1_000)).toBe(false)
		expect(fileUrlSigner('other').verify('doc', 'org/key', 2_000, signature, 1_000)).toBe(false)
	})
})
