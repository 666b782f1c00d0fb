import { badRequest } from '../../errors.ts'
import { jsonDepthWithin, MAX_JSON_DEPTH } from './json-depth.ts'
import { assertStorable } from './text-rule.ts'

/**
 * JSON text sent inside a form field or a query parameter, parsed under the same rules as a JSON body: nesting up to
 * MAX_JSON_DEPTH, and no NUL or unpaired surrogate (written as `\u0000` escapes, they appear only once parsed).
 */
export function parseJsonText(text: string, field: string, invalid = `${field}: must be JSON text`): unknown {
	if (!jsonDepthWithin(text))
		throw badRequest(`${field}: nests deeper than ${MAX_JSON_DEPTH} levels of arrays or objects`)
	let value: unknown
	try {
		value = JSON.parse(text)
	} catch {
		throw badRequest(invalid)
	}
	assertStorable(value, field)
	return value
}
