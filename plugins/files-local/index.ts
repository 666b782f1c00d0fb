export { type FilesLocalOptions, filesLocal } from './plugin.ts'
