export interface Logger {
	debug(message: string, fields?: Record<string, unknown>): void
	info(message: string, fields?: Record<string, unknown>): void
	warn(message: string, fields?: Record<string, unknown>): void
	error(message: string, fields?: Record<string, unknown>): void
}

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const
type Level = keyof typeof LEVELS

/** One JSON line per event on stderr, so stdout stays free for what a command prints. */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
	const threshold = LEVELS[(level in LEVELS ? level : 'info') as Level]
	const emit = (at: Level) => (message: string, fields?: Record<string, unknown>) => {
		if (LEVELS[at] < threshold) return
		process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: at, message, ...fields })}\n`)
	}
	return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') }
}
