import { isRefused, type NotionSession } from './client.ts'

/** A block as Notion sends it, with its children read (blocks are read loosely: a malformed one is skipped). */
export interface Block {
	id: string
	type: string
	has_children?: boolean
	children?: Block[]
	[field: string]: unknown
}

/** Types whose children are separate pages (imported on their own), never read into their parent. */
const SEPARATE = new Set(['child_page', 'child_database'])
/** Deeper nesting than this is not read (a cycle of synced blocks cannot loop). */
const MAX_DEPTH = 12

export interface BlockTree {
	blocks: Block[]
	/** Blocks beyond the budget were not read. */
	truncated: boolean
}

/**
 * A page's blocks with their children, every page of every listing read (100 blocks a request). The page's own
 * listing failing fails the page; a nested listing Notion refuses (gone, not shared) only leaves that part out.
 */
export async function readBlockTree(session: NotionSession, pageId: string, maxBlocks: number): Promise<BlockTree> {
	const tree: BlockTree = { blocks: [], truncated: false }
	let budget = maxBlocks
	const read = async (blockId: string, depth: number): Promise<Block[]> => {
		const blocks: Block[] = []
		let cursor: string | undefined
		do {
			if (budget <= 0) {
				tree.truncated = true
				break
			}
			const page = await session.call((client, auth) =>
				client.blocks.children.list({ auth, block_id: blockId, start_cursor: cursor, page_size: 100 }),
			)
			for (const block of (page.results ?? []) as unknown[]) {
				if (!isBlock(block)) continue
				budget--
				blocks.push(block)
			}
			cursor = page.has_more && page.next_cursor ? page.next_cursor : undefined
		} while (cursor)
		for (const block of blocks) {
			// With the budget spent, `read` lists nothing and marks the page cut.
			if (!block.has_children || SEPARATE.has(block.type) || depth >= MAX_DEPTH) continue
			try {
				block.children = await read(childrenSource(block), depth + 1)
			} catch (error) {
				// Left out of the text; the rest of the page is still read.
				if (!isRefused(error)) throw error
			}
		}
		return blocks
	}
	tree.blocks = await read(pageId, 0)
	return tree
}

const isBlock = (value: unknown): value is Block =>
	typeof value === 'object' &&
	value !== null &&
	typeof (value as Block).id === 'string' &&
	typeof (value as Block).type === 'string'

/** A synced copy's content lives under its original block. */
function childrenSource(block: Block): string {
	if (block.type !== 'synced_block') return block.id
	const from = (block.synced_block as { synced_from?: { block_id?: string } | null } | undefined)?.synced_from
	return from?.block_id ?? block.id
}
