import { useCallback, useEffect, useState } from 'preact/hooks'
import { errorText } from './api.ts'

/** Loads data on mount and on `reload()`; `every` (ms) refreshes it while `live` says so. */
export function useLoad<T>(
	load: () => Promise<T>,
	deps: unknown[],
	options: { every?: number; live?: (data: T) => boolean } = {},
) {
	const [data, setData] = useState<T | null>(null)
	const [error, setError] = useState<string | null>(null)
	const [loading, setLoading] = useState(true)
	const reload = useCallback(async () => {
		try {
			setData(await load())
			setError(null)
		} catch (failure) {
			setError(errorText(failure))
		} finally {
			setLoading(false)
		}
	}, deps)
	useEffect(() => {
		setLoading(true)
		reload()
	}, [reload])
	useEffect(() => {
		if (!options.every || data === null || (options.live && !options.live(data))) return
		const timer = setTimeout(reload, options.every)
		return () => clearTimeout(timer)
	}, [data, reload, options.every])
	return { data, error, loading, reload, setData }
}
