/**
 * The request example Swagger UI fills in for a schema (its json-schema-2020-12 sample generator, which serves
 * OpenAPI 3.1 documents), so a test can send exactly what "Try it out" sends:
 * - `examples[0]`, else `default`, else `example` wins over everything below (a string is JSON-parsed unless the
 *   schema is a string);
 * - `oneOf`/`anyOf`: the first branch, merged under the schema's own keywords;
 * - objects get every property (not only the required ones), `additionalProperties: true` an `additionalProp1: {}`;
 * - arrays one sample item, stretched to `minItems`; `const`, else the first `enum` value;
 * - strings: a string matching `pattern`, else a sample of its `format`, else "string", fitted to min/maxLength;
 * - numbers 0 moved into minimum/maximum; booleans their default or true; null null.
 * Swagger UI draws pattern strings at random; here the draw is the shortest match, one of the strings it may draw.
 */
import RandExp from 'randexp'

type Schema = Record<string, any>

export function sampleFromSchema(schema: Schema | undefined): unknown {
	if (!schema || typeof schema !== 'object') return undefined
	let current = schema
	if (!hasExample(current)) {
		const branches = current.oneOf ?? current.anyOf
		if (Array.isArray(branches) && branches.length > 0) {
			const { oneOf: _o, anyOf: _a, ...own } = current
			current = { ...branches[0], ...own }
		}
	}
	const type = inferType(current)
	if (hasExample(current)) {
		const sample = extractExample(current)
		if (typeof sample === 'number' && type === 'string') return `${sample}`
		if (typeof sample !== 'string' || type === 'string') return sample
		try {
			return JSON.parse(sample)
		} catch {
			return sample
		}
	}
	if (type === 'array') {
		const items = current.items && typeof current.items === 'object' ? [sampleFromSchema(current.items)] : []
		const minItems = Number.isInteger(current.minItems) ? current.minItems : 0
		while (items.length > 0 && items.length < minItems) items.push(items[0])
		return items
	}
	if (type === 'object') {
		const result: Record<string, unknown> = {}
		for (const [name, property] of Object.entries<Schema>(current.properties ?? {})) {
			if (property.deprecated || property.readOnly) continue
			result[name] = sampleFromSchema(property)
		}
		if (current.additionalProperties === true) result.additionalProp1 = {}
		else if (current.additionalProperties && typeof current.additionalProperties === 'object') {
			const value = sampleFromSchema(current.additionalProperties)
			for (let i = 1; i <= 3; i++) result[`additionalProp${i}`] = value
		}
		return result
	}
	if (current.const !== undefined) return current.const
	if (Array.isArray(current.enum)) return current.enum[0]
	switch (type) {
		case 'string':
			return sampleString(current)
		case 'integer':
		case 'number':
			return constrainNumber(0, current)
		case 'boolean':
			return typeof current.default === 'boolean' ? current.default : true
		case 'null':
			return null
		default:
			return `Unknown Type: ${type}`
	}
}

function hasExample(schema: Schema): boolean {
	return (
		(Array.isArray(schema.examples) && schema.examples.length > 0) ||
		schema.default !== undefined ||
		schema.example !== undefined
	)
}

function extractExample(schema: Schema): unknown {
	if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0]
	return schema.default !== undefined ? schema.default : schema.example
}

const INFERRING: [string, string[]][] = [
	['array', ['items', 'prefixItems', 'contains', 'maxItems', 'minItems', 'uniqueItems']],
	['object', ['properties', 'additionalProperties', 'patternProperties', 'required', 'minProperties', 'maxProperties']],
	['string', ['pattern', 'format', 'minLength', 'maxLength', 'contentMediaType']],
	['integer', ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']],
]

function inferType(schema: Schema): string {
	const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []
	if (types.includes('array')) return 'array'
	if (types.includes('object')) return 'object'
	if (types.length > 0) return types[0]
	for (const [type, keywords] of INFERRING) if (keywords.some((k) => k in schema)) return type
	if (schema.const !== undefined) return valueType(schema.const)
	for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
		if (Array.isArray(schema[keyword])) return inferType(schema[keyword][0])
	}
	if (hasExample(schema)) return valueType(extractExample(schema))
	return 'string'
}

function valueType(value: unknown): string {
	if (value === null) return 'null'
	if (Array.isArray(value)) return 'array'
	if (Number.isInteger(value)) return 'integer'
	return typeof value
}

const FORMATS: Record<string, () => string> = {
	'date-time': () => new Date().toISOString(),
	date: () => new Date().toISOString().slice(0, 10),
	time: () => new Date().toISOString().slice(11),
	email: () => 'user@example.com',
	uri: () => 'https://example.com/path',
	'uri-reference': () => 'path/index.html',
	uuid: () => '3fa85f64-5717-4562-b3fc-2c963f66afa6',
	hostname: () => 'example.com',
	ipv4: () => '198.51.100.42',
	ipv6: () => '2001:0db8:5b96:0000:0000:426f:8e17:642a',
	password: () => '********',
}

function sampleString(schema: Schema): string {
	let text: string
	if (typeof schema.pattern === 'string') {
		const generator = new RandExp(schema.pattern)
		generator.max = 100
		generator.randInt = (low: number) => low
		text = generator.gen()
	} else text = FORMATS[schema.format]?.() ?? 'string'
	if (Number.isInteger(schema.maxLength) && schema.maxLength > 0) text = text.slice(0, schema.maxLength)
	if (Number.isInteger(schema.minLength) && schema.minLength > 0) {
		for (let i = 0; text.length < schema.minLength; i++) text += text[i % text.length] ?? 's'
	}
	return text
}

function constrainNumber(value: number, schema: Schema): number {
	let min = typeof schema.minimum === 'number' ? schema.minimum : null
	let max = typeof schema.maximum === 'number' ? schema.maximum : null
	if (typeof schema.exclusiveMinimum === 'number') min = Math.max(min ?? -Infinity, schema.exclusiveMinimum + 1)
	if (typeof schema.exclusiveMaximum === 'number') max = Math.min(max ?? Infinity, schema.exclusiveMaximum - 1)
	let result = (min !== null && max !== null && min > max && value) || min || max || value
	if (typeof schema.multipleOf === 'number' && schema.multipleOf > 0 && result % schema.multipleOf !== 0) {
		result += schema.multipleOf - (result % schema.multipleOf)
	}
	return result
}
