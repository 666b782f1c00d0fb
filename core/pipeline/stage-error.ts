/** Thrown by a stage when retrying cannot help (bad content, unsupported type): the document fails at once. */
export class PermanentStageError extends Error {}
