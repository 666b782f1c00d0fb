/** Settings of memory formation. */
export interface MemorySettings {
	/**
	 * Dynamic dreaming: a container's new documents form their memories together once no document of it has
	 * finished its pipeline for this many seconds (MEMORY_DREAMING_QUIET_SECONDS, default 30).
	 */
	dreamingQuietSeconds: number
	/**
	 * ...and at the latest this many seconds after the oldest of them finished, so a container that never goes
	 * quiet still forms memories (MEMORY_DREAMING_MAX_WAIT_SECONDS, default 300).
	 */
	dreamingMaxWaitSeconds: number
	/** The profile's dynamic part shows memories of the last this many days (MEMORY_PROFILE_DYNAMIC_DAYS, default 30). */
	profileDynamicDays: number
}

type Env = Record<string, string | undefined>
type Integer = (env: Env, name: string, fallback: number, min?: number) => number

export function memorySettingsFromEnv(env: Env, integer: Integer): MemorySettings {
	const quiet = integer(env, 'MEMORY_DREAMING_QUIET_SECONDS', 30, 0)
	return {
		dreamingQuietSeconds: quiet,
		dreamingMaxWaitSeconds: Math.max(quiet, integer(env, 'MEMORY_DREAMING_MAX_WAIT_SECONDS', 300, 0)),
		profileDynamicDays: integer(env, 'MEMORY_PROFILE_DYNAMIC_DAYS', 30, 1),
	}
}
