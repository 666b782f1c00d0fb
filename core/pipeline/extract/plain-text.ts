import { embeddedChat, renderEmbeddedChat } from './chat-messages.ts'
import { deriveTitle, normalizeExtractedText } from './text.ts'

/** Text as it is, or the transcript of a chat it holds as JSON after a preamble (chat-messages.ts). */
export function plainText(text: string): { text: string; title: string | null } {
	const chat = embeddedChat(text)
	if (!chat) return { text: normalizeExtractedText(text), title: null }
	return { text: normalizeExtractedText(renderEmbeddedChat(chat)), title: deriveTitle(chat.preamble) }
}
