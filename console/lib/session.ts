/** The API key lives in this tab's session only: closing the tab signs out. */
const STORAGE_KEY = 'memory-console:key'

export interface Principal {
	orgId: string
	orgName: string
	keyId: string
	containerTags: string[] | null
}

export const session = {
	get key(): string | null {
		return sessionStorage.getItem(STORAGE_KEY)
	},
	set(key: string) {
		sessionStorage.setItem(STORAGE_KEY, key)
	},
	clear() {
		sessionStorage.removeItem(STORAGE_KEY)
	},
}
