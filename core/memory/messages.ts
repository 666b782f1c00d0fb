import { parseSpeakerLine } from '../pipeline/transcript.ts'

export interface ChatMessage {
	role: 'user' | 'assistant' | 'system' | 'tool'
	content: string | ({ type: 'text'; text: string } | { type: 'image_url'; imageUrl: { url: string } })[]
	name?: string
}

/**
 * A chat as a transcript, one `speaker: text` turn per message (the speaker is the message's `name` when it reads as
 * one, else its role). Image parts become `[image: url]`. A line inside a message that would itself read as a new
 * turn (`Note: ...`) is joined to the line before it, so the transcript parses back to the same messages.
 */
export function renderMessages(messages: ChatMessage[]): string {
	return messages
		.map((message) => {
			const speaker = speakerOf(message)
			const text = textOf(message.content)
			const lines: string[] = []
			for (const line of text.split('\n')) {
				if (lines.length > 0 && parseSpeakerLine(line)) lines[lines.length - 1] += ` ${line.trim()}`
				else lines.push(line)
			}
			const body = lines.join('\n').trim()
			return body ? `${speaker}: ${body}` : `${speaker}:`
		})
		.join('\n')
}

function speakerOf(message: ChatMessage): string {
	const name = message.name?.replace(/[:\n]/g, ' ').trim()
	return name && parseSpeakerLine(`${name}: x`) ? name : message.role
}

function textOf(content: ChatMessage['content']): string {
	if (typeof content === 'string') return content.replace(/\r\n?/g, '\n')
	return content
		.map((part) => (part.type === 'text' ? part.text : `[image: ${part.imageUrl.url}]`))
		.join('\n')
		.replace(/\r\n?/g, '\n')
}
