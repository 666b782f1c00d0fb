import {
	type Extracted,
	extractDocument,
	type FormationDeps,
	type FormationOutcome,
	formationCandidateBound,
	formExtracted,
	inGroups,
	MAX_FORMATION_DOCUMENTS,
} from './form-document.ts'

interface Waiting {
	entry: Extracted
	settle: (outcome: FormationOutcome | Error) => void
}

/**
 * Instant dreaming, coalesced per container. Formations of one container hold its formation lock one at a time,
 * so documents that arrive while one runs would each wait for the lock and re-read the container. Instead each
 * document is read, extracted and embedded on its own (outside the lock, concurrently), then joins its container's
 * queue; the queue forms everything waiting in one transaction (one per formation scope), in arrival order, so
 * later documents link to what earlier ones formed. A batch that fails is formed again document by document, so only the bad one fails.
 */
export class InstantFormation {
	private readonly queues = new Map<string, Waiting[]>()

	constructor(private readonly deps: FormationDeps) {}

	/** `waiting` is called when the document is extracted and joins its container's queue. */
	async form(documentId: string, waiting?: () => void, signal?: AbortSignal): Promise<FormationOutcome> {
		const prepared = await extractDocument(documentId, this.deps, { dreamingDone: false, signal })
		if ('kind' in prepared) return prepared
		waiting?.()
		const key = `${prepared.document.orgId}\u0000${prepared.document.containerTag}`
		const outcome = await new Promise<FormationOutcome | Error>((settle) => {
			const queue = this.queues.get(key)
			if (queue) queue.push({ entry: prepared, settle })
			else {
				const started: Waiting[] = [{ entry: prepared, settle }]
				this.queues.set(key, started)
				void this.drain(key, started)
			}
		})
		if (outcome instanceof Error) throw outcome
		return outcome
	}

	private async drain(key: string, queue: Waiting[]): Promise<void> {
		while (queue.length > 0) {
			const [first] = inGroups(
				queue.slice(0, MAX_FORMATION_DOCUMENTS),
				(waiting) => waiting.entry.candidates.length,
				formationCandidateBound(this.deps.storage),
			)
			const batch = latestPerDocument(queue.splice(0, first!.length))
			try {
				const outcomes = await formExtracted(
					batch.map((waiting) => waiting.entry),
					this.deps,
				)
				for (const waiting of batch) waiting.settle(outcomes.get(waiting.entry.document.id) ?? { kind: 'stale' })
			} catch (error) {
				if (batch.length === 1) batch[0]!.settle(asError(error))
				else await this.formOneByOne(batch)
			}
		}
		this.queues.delete(key)
	}

	private async formOneByOne(batch: Waiting[]): Promise<void> {
		for (const waiting of batch) {
			try {
				const outcomes = await formExtracted([waiting.entry], this.deps)
				waiting.settle(outcomes.get(waiting.entry.document.id) ?? { kind: 'stale' })
			} catch (error) {
				waiting.settle(asError(error))
			}
		}
	}
}

/** A document queued twice (a job re-run while its first run waits) forms once, with its latest extraction. */
function latestPerDocument(batch: Waiting[]): Waiting[] {
	const latest = new Map<string, Waiting>()
	for (const waiting of batch) {
		const id = waiting.entry.document.id
		latest.get(id)?.settle({ kind: 'stale' })
		latest.set(id, waiting)
	}
	return [...latest.values()]
}

function asError(error: unknown): Error {
	return error instanceof Error ? error : new Error(String(error))
}
