import type { DecodedMessage } from './mime.ts'

export interface ThreadMessage {
	id: string
	/** Gmail's receipt time (ms), used when the Date header does not parse. */
	internalDate: number
	decoded: DecodedMessage
	/** The message's own words (quoted replies removed). */
	body: string
}

export const dateOf = (message: ThreadMessage) => {
	const parsed = message.decoded.date ? Date.parse(message.decoded.date) : Number.NaN
	return new Date(Number.isNaN(parsed) ? message.internalDate : parsed).toISOString()
}

/** One thread as Markdown: its subject, then each message in order with From, To, (Cc,) Date and Subject. */
export function renderThread(messages: ThreadMessage[]): { title: string; content: string } {
	const ordered = [...messages].sort((a, b) => a.internalDate - b.internalDate)
	const title = ordered.find((message) => message.decoded.subject)?.decoded.subject || '(no subject)'
	const sections = ordered.map((message) => {
		const { from, to, cc, subject } = message.decoded
		const header = [
			`From: ${from || '(unknown)'}`,
			`To: ${to || '(undisclosed recipients)'}`,
			...(cc ? [`Cc: ${cc}`] : []),
			`Date: ${dateOf(message)}`,
			`Subject: ${subject || '(no subject)'}`,
		]
		return `${header.join('\n')}\n\n${message.body}`.trim()
	})
	return { title, content: `# ${title}\n\n${sections.join('\n\n---\n\n')}\n` }
}
