import type { DocumentStore } from '../../../core/index.ts'
import type { Db } from '../db.ts'
import { deleteDocument, deleteDocuments } from './document-delete.ts'
import { listDocuments, processingDocuments } from './document-list.ts'
import {
	documentById,
	getDocument,
	getDocumentHeaders,
	getDocumentInContainer,
	getDocuments,
} from './document-lookup.ts'
import { setProgress, unfinishedDocuments } from './document-pipeline.ts'
import { documentText, setExtracted } from './document-text.ts'
import { updateDocument } from './document-update.ts'
import { upsertDocument } from './document-upsert.ts'

export function documentStore(db: () => Db): DocumentStore {
	return {
		upsert: (scope, input) => upsertDocument(db(), scope, input),
		get: (scope, reference, containerTags) => getDocument(db(), scope, reference, containerTags),
		getInContainer: (scope, tag, reference) => getDocumentInContainer(db(), scope, tag, reference),
		getMany: (scope, ids) => getDocuments(db(), scope, ids),
		headers: (scope, ids) => getDocumentHeaders(db(), scope, ids),
		update: (scope, reference, patch) => updateDocument(db(), scope, reference, patch),
		delete: (scope, reference) => deleteDocument(db(), scope, reference),
		deleteMany: (scope, selector) => deleteDocuments(db(), scope, selector),
		list: (scope, query) => listDocuments(db(), scope, query),
		processing: (scope) => processingDocuments(db(), scope),
		byId: (id) => documentById(db(), id),
		setProgress: (id, update) => setProgress(db(), id, update),
		setExtracted: (id, contentHash, extracted) => setExtracted(db(), id, contentHash, extracted),
		text: (id) => documentText(db(), id),
		unfinished: (limit) => unfinishedDocuments(db(), limit),
	}
}
