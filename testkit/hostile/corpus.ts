import { type HostileValue, inPath } from './hostile-values.ts'
import { bodyWith, type Operation } from './operations.ts'
import { observe, type Send } from './send.ts'

export interface CorpusFinding {
	request: string
	value: string
	status: number
	problem: string
}

export interface CorpusResult {
	tried: number
	serverErrors: number
	nonJsonErrors: number
	/** Unstorable text (NUL, unpaired surrogate) not refused with a 400 naming the field. */
	unnamedRefusals: number
	findings: CorpusFinding[]
}

const PLACEHOLDER = 'drill-none'

interface Attempt {
	operation: Operation
	/** The parameter or field the value went into. */
	field: string
	/** Whether the value can reach the service as sent (a lone surrogate cannot travel in a URL or a form). */
	exact: boolean
	method: string
	path: string
	body?: string | FormData
}

function attemptsFor(operation: Operation, hostile: HostileValue): Attempt[] {
	const url = (param: string | null, value: string) =>
		operation.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === param ? inPath(value) : PLACEHOLDER))
	const attempts: Attempt[] = []
	const exactInUrl = !hostile.name.includes('surrogate')
	for (const param of operation.pathParams) {
		attempts.push({
			operation,
			field: param,
			exact: exactInUrl,
			method: operation.method,
			path: url(param, hostile.value),
		})
	}
	for (const param of operation.queryParams) {
		const path = `${url(null, '')}?${param}=${inPath(hostile.value)}`
		attempts.push({ operation, field: param, exact: exactInUrl, method: operation.method, path })
	}
	for (const field of operation.bodyFields) {
		let body: string | FormData
		if (operation.multipart) {
			body = new FormData()
			body.set('file', new File(['drill text'], 'drill.txt', { type: 'text/plain' }))
			body.set(field, hostile.value)
		} else {
			body = JSON.stringify(bodyWith(field, hostile.value))
		}
		attempts.push({
			operation,
			field,
			exact: !operation.multipart || exactInUrl,
			method: operation.method,
			path: url(null, ''),
			body,
		})
	}
	return attempts
}

/**
 * Sends every hostile value in every parameter and body field of every operation. The service must never answer 5xx,
 * every error must be the JSON `{ error, details }`, and unstorable text must be refused with 400 naming its field.
 */
export async function runCorpus(send: Send, operations: Operation[], values: HostileValue[]): Promise<CorpusResult> {
	const result: CorpusResult = { tried: 0, serverErrors: 0, nonJsonErrors: 0, unnamedRefusals: 0, findings: [] }
	for (const operation of operations) {
		for (const hostile of values) {
			for (const attempt of attemptsFor(operation, hostile)) {
				const seen = await observe(await send(attempt.method, attempt.path, { body: attempt.body }))
				result.tried++
				const request = `${attempt.method} ${operation.path} ${attempt.field}`
				const finding = (problem: string) =>
					result.findings.push({ request, value: hostile.name, status: seen.status, problem })
				if (seen.status >= 500) {
					result.serverErrors++
					finding(`server error: ${seen.text.slice(0, 200)}`)
				} else if (!seen.jsonError) {
					result.nonJsonErrors++
					finding(`not a JSON error: ${seen.text.slice(0, 200)}`)
				} else if (hostile.unstorable && attempt.exact && !operation.public) {
					if (seen.status !== 400 || !seen.details.includes(attempt.field)) {
						result.unnamedRefusals++
						finding(`not a 400 naming ${attempt.field}: ${seen.text.slice(0, 200)}`)
					}
				}
			}
		}
	}
	return result
}
