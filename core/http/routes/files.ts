import { Elysia, t } from 'elysia'
import { ServiceError } from '../../errors.ts'
import type { RouteDeps } from '../route-deps.ts'

const refused = () =>
	new ServiceError(403, 'Invalid or expired file URL', 'ask GET /v3/documents/{id}/file-url for a fresh one')

/** Serves originals behind signed URLs; the signature is the authorization, so no API key is asked. */
export function fileRoutes({ files }: RouteDeps) {
	return new Elysia().get(
		'/v3/files/:documentId/:name',
		async ({ params, query }) => {
			const opened = await files.open(params.documentId, Number(query.expires), query.signature)
			if (!opened) throw refused()
			return new Response(opened.body, {
				headers: {
					'content-type': opened.file.mimeType,
					'content-length': String(opened.size),
					'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(opened.file.name || 'file')}`,
					// An uploaded HTML file must never run as a page of this origin.
					'content-security-policy': "default-src 'none'; sandbox",
					'x-content-type-options': 'nosniff',
					'cache-control': 'private, max-age=3600',
				},
			})
		},
		{
			params: t.Object({ documentId: t.String({ minLength: 1, maxLength: 64 }), name: t.String() }),
			query: t.Object({ expires: t.String({ pattern: '^\\d{1,12}$' }), signature: t.String({ maxLength: 128 }) }),
			detail: {
				tags: ['documents'],
				summary: 'Download an original through a signed URL (from GET /v3/documents/{id}/file-url)',
				security: [],
			},
		},
	)
}
