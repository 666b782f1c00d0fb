/**
 * Steps onto the macrotask queue. The embedded database and a local embedder work on this thread and answer on the
 * microtask queue, so back-to-back work would never let the HTTP server accept a request; long series of steps
 * (chunk writes, embedding batches, batched deletes) await this between steps to keep the API responsive.
 */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))
