/** The fields of a Graph driveItem the connector reads. */
export interface DriveItem {
	id: string
	name?: string
	size?: number
	eTag?: string
	cTag?: string
	webUrl?: string
	lastModifiedDateTime?: string
	file?: { mimeType?: string; hashes?: { quickXorHash?: string; sha256Hash?: string; sha1Hash?: string } }
	folder?: { childCount?: number }
	package?: { type?: string }
	root?: Record<string, unknown>
	deleted?: { state?: string }
	parentReference?: { id?: string; driveId?: string; path?: string }
}

export interface DrivePage {
	value?: DriveItem[]
	'@odata.nextLink'?: string
	'@odata.deltaLink'?: string
}
