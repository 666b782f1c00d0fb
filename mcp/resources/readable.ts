import { ServiceError } from '../../core/errors.ts'

/** Resources and prompts have no tool-error form: an API error becomes a protocol error carrying its message. */
export async function readable<T>(read: () => Promise<T>): Promise<T> {
	try {
		return await read()
	} catch (error) {
		if (error instanceof ServiceError)
			throw new Error(error.details ? `${error.message}: ${error.details}` : error.message)
		throw error
	}
}
