/**
 * A blocking query run for as long as a watch lasts (the discovery service's `?index=&wait=`
 * reads; reference: Consul's blocking-query rules, as consul-template's view follows them):
 * the first read does not block; each later one blocks on the index of the previous reply.
 * A reply with the same index (the wait ran out) changes nothing; an index that went
 * backwards (a restored snapshot, another server) is reset, so the next read does not block;
 * an index of 0 is taken as 1, so a buggy reply cannot turn the loop into a busy one.
 * Failures are reported and retried with the discovery retry's backoff, forever; the read after
 * a failure does not block, and its value is told even when unchanged (shared.ts).
 *
 * @module
 */
import type { WatchContext } from './shared.js';
import type { TemplateSourceSettings } from './settings.js';

/** One read: the value and the reply's index; blocks while `index` is given and current. */
export type BlockingRead = (o: { readonly index?: number; readonly wait: string; readonly signal: AbortSignal }) => Promise<{ value: unknown; index: number }>;

/** Runs `read` in a loop until `ctx.signal` aborts (module doc). */
export async function runBlockingQuery(ctx: WatchContext, read: BlockingRead, settings: TemplateSourceSettings): Promise<void> {
  const wait = `${Math.max(1, Math.round(settings.blockQueryWaitMs))}ms`;
  let index: number | undefined;
  let failures = 0;
  while (!ctx.signal.aborted) {
    let r: { value: unknown; index: number };
    // After a failure the read does not block: the listeners learn at once that the service is back.
    const recovering = failures > 0;
    try {
      r = await read({ index: recovering ? undefined : index, wait, signal: ctx.signal });
    } catch (err) {
      if (ctx.signal.aborted) return;
      await ctx.failed(err, ++failures, settings.consulRetry);
      continue;
    }
    failures = 0;
    if (ctx.signal.aborted) return;
    if (!recovering && index !== undefined && r.index === index) continue;
    index = index !== undefined && r.index < index ? undefined : Math.max(r.index, 1);
    ctx.value(r.value);
  }
}
