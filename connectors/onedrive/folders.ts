/**
 * Which folders lie under the chosen ones. Delta items name only their parent's id (never a path), so the parent
 * of every folder seen is kept, and a folder never seen is looked up once.
 */
export class FolderTree {
	private readonly parents: Map<string, string | null>

	constructor(
		private readonly chosen: Set<string>,
		json: string | null,
		private readonly parentOf: (folderId: string) => Promise<string | null>,
	) {
		this.parents = new Map(Object.entries(json ? (JSON.parse(json) as Record<string, string | null>) : {}))
	}

	/** Records a folder where it is now; true when it was known elsewhere (moved). */
	record(folderId: string, parentId: string | null): boolean {
		const known = this.parents.has(folderId) ? this.parents.get(folderId) : undefined
		this.parents.set(folderId, parentId)
		return known !== undefined && known !== parentId
	}

	isFolder(id: string): boolean {
		return this.parents.has(id)
	}

	remove(folderId: string): void {
		this.parents.delete(folderId)
	}

	/** Whether an item in `parentId` is synced: anywhere when no folder is chosen, else under a chosen one. */
	async contains(parentId: string | null | undefined): Promise<boolean> {
		if (this.chosen.size === 0) return true
		const visited = new Set<string>()
		let id = parentId ?? null
		while (id !== null && !visited.has(id)) {
			if (this.chosen.has(id)) return true
			visited.add(id)
			if (!this.parents.has(id)) this.parents.set(id, await this.parentOf(id))
			id = this.parents.get(id) ?? null
		}
		return false
	}

	json(): string {
		return JSON.stringify(Object.fromEntries(this.parents))
	}
}
