/** What an attacker or a broken client puts in a string field, with a name for the drill's table. */
export interface HostileValue {
	name: string
	value: string
	/** Text the service must refuse with 400 naming the field (the one rule for NUL and unpaired surrogates). */
	unstorable: boolean
}

export const UNSTORABLE_VALUES: HostileValue[] = [
	{ name: 'NUL inside', value: 'abc\u0000def', unstorable: true },
	{ name: 'lone high surrogate', value: '\ud800', unstorable: true },
	{ name: 'lone low surrogate', value: 'x\udc00y', unstorable: true },
]

export const HOSTILE_VALUES: HostileValue[] = [
	...UNSTORABLE_VALUES,
	{ name: 'SQL injection', value: "x' OR '1'='1'; DROP TABLE documents; --", unstorable: false },
	{ name: 'path traversal', value: '../../../../etc/passwd', unstorable: false },
	{ name: 'percent-encoded NUL', value: '%00', unstorable: false },
	{ name: 'bidi override and emoji', value: '\u202e😀\u200b\ufeff', unstorable: false },
	{ name: 'empty', value: '', unstorable: false },
	{ name: 'whitespace only', value: ' \t\n ', unstorable: false },
	{ name: '20 000 characters', value: 'w'.repeat(20_000), unstorable: false },
	{ name: 'JSON text', value: '{"AND":[{"key":"a","value":"b"}]}', unstorable: false },
	{ name: 'number-like', value: '1e309', unstorable: false },
	{ name: 'prototype key', value: '__proto__', unstorable: false },
]

/** How a hostile value travels in a URL path segment (a lone surrogate cannot be UTF-8: its raw bytes go instead). */
export function inPath(value: string): string {
	try {
		return encodeURIComponent(value)
	} catch {
		return '%ED%A0%80'
	}
}
