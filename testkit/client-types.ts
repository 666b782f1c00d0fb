/**
 * The response types the published `supermemory` client (4.25.4, node_modules/supermemory/resources/*.d.ts) declares,
 * as TypeBox schemas: every non-optional key required, `T | null` nullable, extra keys allowed. Tests check real
 * responses against them, so a field the client's types promise is never missing or of another type.
 */
import { Type as T, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { MEMORY_RELATIONS } from '../core/domain/memory.ts'
import { DOCUMENT_STATUSES, DOCUMENT_TYPES, TASK_TYPES } from '../core/domain/types.ts'

const Str = T.String()
const NStr = T.Union([T.String(), T.Null()])
const Num = T.Number()
const NNum = T.Union([T.Number(), T.Null()])
const NBool = T.Union([T.Boolean(), T.Null()])
const Obj = T.Record(T.String(), T.Unknown())
const NObj = T.Union([Obj, T.Null()])
const AnyJson = T.Union([T.String(), T.Number(), T.Boolean(), Obj, T.Array(T.Unknown()), T.Null()])
const Enum = (...values: readonly string[]) => T.Union(values.map((value) => T.Literal(value)))
const DocumentStatus = Enum(...DOCUMENT_STATUSES)
// The service's own list: it adds `granola`, which the client's types do not name yet.
const DocumentType = Enum(...DOCUMENT_TYPES)
const TaskType = Enum(...TASK_TYPES)
const Relation = Enum(...MEMORY_RELATIONS)
const Opt = T.Optional

const IdStatus = T.Object({ id: Str, status: Str })

export const ClientTypes = {
	AddResponse: IdStatus,
	DocumentUpdateResponse: IdStatus,
	DocumentUploadFileResponse: IdStatus,
	DocumentGetResponse: T.Object({
		id: Str,
		connectionId: NStr,
		content: NStr,
		createdAt: Str,
		customId: NStr,
		filepath: NStr,
		metadata: AnyJson,
		ogImage: NStr,
		raw: T.Unknown(),
		source: NStr,
		// `unknown`, but the key is declared.
		spatialPoint: T.Unknown(),
		status: DocumentStatus,
		summary: NStr,
		taskType: TaskType,
		title: NStr,
		type: DocumentType,
		updatedAt: Str,
		containerTags: Opt(T.Array(Str)),
		url: Opt(NStr),
	}),
	DocumentListResponse: T.Object({
		memories: T.Array(
			T.Object({
				id: Str,
				connectionId: NStr,
				createdAt: Str,
				customId: NStr,
				filepath: NStr,
				metadata: AnyJson,
				status: DocumentStatus,
				summary: NStr,
				title: NStr,
				type: DocumentType,
				updatedAt: Str,
				containerTags: Opt(T.Array(Str)),
				content: Opt(Str),
				url: Opt(NStr),
			}),
		),
		pagination: T.Object({ currentPage: Num, totalItems: Num, totalPages: Num, limit: Opt(Num) }),
	}),
	DocumentBatchAddResponse: T.Object({
		failed: Num,
		success: Num,
		results: T.Array(T.Object({ id: Str, status: Str, details: Opt(Str), error: Opt(Str) })),
	}),
	DocumentDeleteBulkResponse: T.Object({
		deletedCount: Num,
		success: T.Boolean(),
		containerTags: Opt(T.Array(Str)),
		errors: Opt(T.Array(T.Object({ id: Str, error: Str }))),
	}),
	DocumentListProcessingResponse: T.Object({
		documents: T.Array(
			T.Object({
				id: Str,
				createdAt: Str,
				customId: NStr,
				metadata: AnyJson,
				status: DocumentStatus,
				title: NStr,
				type: DocumentType,
				updatedAt: Str,
				containerTags: Opt(T.Array(Str)),
			}),
		),
		totalCount: Num,
	}),
	SearchDocumentsResponse: T.Object({
		results: T.Array(
			T.Object({
				chunks: T.Array(T.Object({ content: Str, isRelevant: T.Boolean(), score: Num })),
				createdAt: Str,
				documentId: Str,
				metadata: NObj,
				score: Num,
				title: NStr,
				type: NStr,
				updatedAt: Str,
				content: Opt(NStr),
				summary: Opt(NStr),
			}),
		),
		timing: Num,
		total: Num,
	}),
	SearchMemoriesResponse: T.Object({
		results: T.Array(
			T.Object({
				id: Str,
				metadata: NObj,
				similarity: Num,
				updatedAt: Str,
				chunk: Opt(Str),
				chunks: Opt(T.Array(T.Object({ content: Str, documentId: Str, position: Num, score: Num }))),
				context: Opt(
					T.Object({
						children: Opt(T.Array(contextEntry(Relation))),
						parents: Opt(T.Array(contextEntry(Relation))),
						related: Opt(T.Array(contextEntry(Enum('extends', 'derives')))),
					}),
				),
				documents: Opt(
					T.Array(
						T.Object({
							id: Str,
							createdAt: Str,
							updatedAt: Str,
							metadata: Opt(NObj),
							summary: Opt(NStr),
							title: Opt(Str),
							type: Opt(Str),
						}),
					),
				),
				filepath: Opt(NStr),
				isAggregated: Opt(T.Boolean()),
				memory: Opt(Str),
				version: Opt(NNum),
			}),
		),
		timing: Num,
		total: Num,
	}),
	MemoryForgetResponse: T.Object({ id: Str, forgotten: T.Boolean() }),
	MemoryUpdateMemoryResponse: T.Object({
		id: Str,
		createdAt: Str,
		forgetAfter: NStr,
		forgetReason: NStr,
		memory: Str,
		parentMemoryId: NStr,
		rootMemoryId: NStr,
		version: Num,
	}),
	SettingGetResponse: settingsView(),
	SettingUpdateResponse: T.Object({ orgId: Str, orgSlug: Str, updated: settingsView() }),
	ProfileResponse: T.Object({
		profile: T.Object({ dynamic: T.Array(Str), static: T.Array(Str) }),
		searchResults: Opt(T.Object({ results: T.Array(T.Unknown()), timing: Num, total: Num })),
	}),
} satisfies Record<string, TSchema>

function contextEntry(relation: TSchema) {
	return T.Object({ memory: Str, relation, updatedAt: Str, metadata: Opt(NObj), version: Opt(NNum) })
}

function settingsView() {
	const providers = ['github', 'googleDrive', 'notion', 'onedrive']
	return T.Object({
		chunkSize: Opt(NNum),
		excludeItems: Opt(AnyJson),
		includeItems: Opt(AnyJson),
		filterPrompt: Opt(NStr),
		shouldLLMFilter: Opt(NBool),
		// Not in 4.25.4's types; the API's own list of bucket definitions (an array whenever present).
		profileBuckets: Opt(T.Array(T.Object({ key: Str, description: Opt(NStr) }))),
		...Object.fromEntries(
			providers.flatMap((p) => [
				[`${p}ClientId`, Opt(NStr)],
				[`${p}ClientSecret`, Opt(NStr)],
				[`${p}CustomKeyEnabled`, Opt(NBool)],
			]),
		),
	})
}

/** Where `value` departs from the client's type `name`: one line per field, empty when it conforms. */
export function clientTypeErrors(name: keyof typeof ClientTypes, value: unknown): string[] {
	return [...Value.Errors(ClientTypes[name], value)].map((error) => `${name}${error.path}: ${error.message}`)
}
