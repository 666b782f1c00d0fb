/**
 * A counting semaphore whose holder may give its slot back before it is done: documents in their pipeline stages
 * take one, and a document that from then on only waits (for its container's memory formation, which runs one at a
 * time) gives it to the next document instead of keeping the processor idle.
 */
export class Slots {
	private free: number
	private readonly waiting: (() => void)[] = []

	constructor(size: number) {
		this.free = size
	}

	/** Waits for a slot; the returned function gives it back (again: nothing). */
	async take(): Promise<() => void> {
		if (this.free > 0) this.free--
		else await new Promise<void>((resolve) => this.waiting.push(resolve))
		let held = true
		return () => {
			if (!held) return
			held = false
			const next = this.waiting.shift()
			if (next) next()
			else this.free++
		}
	}
}
