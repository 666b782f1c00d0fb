import { useEffect, useState } from 'preact/hooks'

/** Hash routes (`#/documents/abc`), so the service serves one page and a reload keeps the place. */
export function currentRoute(): string[] {
	return location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent)
}

export function useRoute(): string[] {
	const [route, setRoute] = useState(currentRoute)
	useEffect(() => {
		const update = () => setRoute(currentRoute())
		addEventListener('hashchange', update)
		return () => removeEventListener('hashchange', update)
	}, [])
	return route
}

export function href(...parts: string[]): string {
	return `#/${parts.map(encodeURIComponent).join('/')}`
}

export function go(...parts: string[]) {
	location.hash = href(...parts)
}
