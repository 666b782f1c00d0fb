import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { StartupError } from '../errors.ts'

const VERSION = 'v1'

/** Authenticated encryption (AES-256-GCM) for secrets kept at rest: OAuth client secrets and, later, tokens. */
export interface SecretBox {
	seal(plain: string): string
	open(sealed: string): string
}

export function isSealed(value: unknown): value is string {
	return typeof value === 'string' && value.startsWith(`${VERSION}:`)
}

export function secretBox(key: Buffer): SecretBox {
	if (key.length !== 32) throw new StartupError('the encryption key must be 32 bytes')
	return {
		seal(plain) {
			const iv = randomBytes(12)
			const cipher = createCipheriv('aes-256-gcm', key, iv)
			const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
			return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':')
		},
		open(sealed) {
			const [version, iv, tag, body] = sealed.split(':')
			if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('not a sealed secret')
			const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'))
			decipher.setAuthTag(Buffer.from(tag, 'base64'))
			return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8')
		},
	}
}

/**
 * The key comes from MEMORY_ENCRYPTION_KEY (any string; hashed to 32 bytes). Without it, a random key is generated once
 * into a file (mode 0600) beside the embedded store, so the offline default works; a server deployment should set the
 * variable (from its secret manager) so database dumps never travel with their key.
 */
export function loadEncryptionKey(input: { env: Record<string, string | undefined>; keyFile: string }): Buffer {
	const configured = input.env.MEMORY_ENCRYPTION_KEY
	if (configured) {
		if (configured.length < 16) throw new StartupError('MEMORY_ENCRYPTION_KEY must be at least 16 characters')
		return createHash('sha256').update(configured).digest()
	}
	if (existsSync(input.keyFile)) return Buffer.from(readFileSync(input.keyFile, 'utf8').trim(), 'base64')
	mkdirSync(dirname(input.keyFile), { recursive: true })
	const key = randomBytes(32)
	writeFileSync(input.keyFile, key.toString('base64'), { mode: 0o600 })
	return key
}
