import type { MemoryStep } from '../pipeline/process-document.ts'
import { armContainer, type DreamingDeps } from './dreaming.ts'
import { InstantFormation } from './instant-formation.ts'

/** The pipeline's memory step: instant formation, or a hand-over to the container's dreaming batch. */
export function memoryStep(deps: DreamingDeps): MemoryStep {
	const instant = new InstantFormation(deps)
	return {
		forms: (document) => deps.extractor !== null && document.taskType === 'memory',
		async formNow(documentId, waiting, signal) {
			await instant.form(documentId, waiting, signal)
		},
		async dreamLater(document) {
			await armContainer(deps, { orgId: document.orgId, containerTag: document.containerTag })
		},
	}
}
