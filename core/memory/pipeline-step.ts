import type { MemoryStep } from '../pipeline/process-document.ts'
import { armContainer, type DreamingDeps } from './dreaming.ts'
import { formDocumentMemories } from './form-document.ts'

/** The pipeline's memory step: instant formation, or a hand-over to the container's dreaming batch. */
export function memoryStep(deps: DreamingDeps): MemoryStep {
	return {
		forms: (document) => deps.extractor !== null && document.taskType === 'memory',
		async formNow(documentId) {
			await formDocumentMemories(documentId, deps, { dreamingDone: false })
		},
		async dreamLater(document) {
			await armContainer(deps, { orgId: document.orgId, containerTag: document.containerTag })
		},
	}
}
