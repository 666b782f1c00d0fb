import type { Params } from './params.ts'

/** Builds `column = expression` pairs for an UPDATE; values go through `params`, columns are fixed names. */
export class Assignments {
	private readonly pairs: string[] = []

	constructor(private readonly params: Params) {}

	/** `column = $n` (with an optional cast such as '::jsonb'). */
	value(column: string, value: unknown, cast = ''): this {
		this.pairs.push(`${column} = ${this.params.add(value)}${cast}`)
		return this
	}

	/** `column = <sql>`, for expressions without user input. */
	raw(column: string, sql: string): this {
		this.pairs.push(`${column} = ${sql}`)
		return this
	}

	get size(): number {
		return this.pairs.length
	}

	toString(): string {
		return this.pairs.join(', ')
	}
}
