import type { ResourcePage, SyncContext } from '../../core/index.ts'
import { octokitFor } from './client.ts'
import type { GithubSettings } from './options.ts'

/** The repositories the token can read, as Supermemory lists them. */
export async function listRepositories(
	apiUrl: string,
	ctx: SyncContext<GithubSettings>,
	query: { page: number; perPage: number },
): Promise<ResourcePage> {
	const octokit = await octokitFor(apiUrl, ctx)
	const { data } = await octokit.repos.listForAuthenticatedUser({
		page: query.page,
		per_page: query.perPage,
		sort: 'updated',
	})
	return {
		resources: data.map((repo) => ({
			id: repo.id,
			name: repo.name,
			full_name: repo.full_name,
			description: repo.description,
			private: repo.private,
			default_branch: repo.default_branch,
			updated_at: repo.updated_at,
		})),
	}
}

/**
 * `[{ id, full_name | name: "owner/repo", defaultBranch | default_branch }]` becomes the repositories to sync; a
 * resource may carry `includeCode: true` to import source files too, and `includeIssues: true` to import issues and
 * pull requests (both apply to every repository of the connection; omitted, the current choice stays).
 */
export async function configureRepositories(
	settings: GithubSettings,
	resources: Record<string, unknown>[],
): Promise<GithubSettings> {
	const repositories = resources.map((resource, index) => {
		const fullName = [resource.full_name, resource.fullName, resource.name].find(
			(value): value is string => typeof value === 'string' && /^[\w.-]+\/[\w.-]+$/.test(value),
		)
		if (!fullName) throw new Error(`resources[${index}] needs full_name ("owner/repository")`)
		const branch = resource.defaultBranch ?? resource.default_branch ?? 'main'
		if (typeof branch !== 'string' || branch === '') throw new Error(`resources[${index}].defaultBranch must be text`)
		return { id: Number(resource.id) || 0, fullName, defaultBranch: branch }
	})
	const option = (name: 'includeCode' | 'includeIssues'): boolean => {
		const chosen = resources.find((resource) => typeof resource[name] === 'boolean')?.[name]
		return typeof chosen === 'boolean' ? chosen : (settings[name] ?? false)
	}
	return { repositories, includeCode: option('includeCode'), includeIssues: option('includeIssues') }
}
