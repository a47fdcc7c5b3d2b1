/** Time limits for verifier work: a promise raced against a timer, with the work told to stop. */
import { VerifierTimeoutError } from './errors.js';

/**
 * Runs `work` with a time limit. `work` receives a signal that aborts when the limit passes or when
 * `parent` aborts; the returned promise rejects with `VerifierTimeoutError` at the limit even if
 * `work` ignores the signal, so the caller never hangs.
 *
 * @example await withTimeout((signal) => ctx.runTool(req, signal), 60_000, 'ngspice')
 */
export async function withTimeout<T>(
  work: (signal: AbortSignal) => Promise<T>,
  timeoutMs: number,
  what: string,
  parent?: AbortSignal,
): Promise<T> {
  const ac = new AbortController();
  const onParentAbort = (): void => ac.abort(parent?.reason);
  if (parent?.aborted) ac.abort(parent.reason);
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new VerifierTimeoutError(what, timeoutMs);
      // Reject before aborting: work that settles on abort must not win the race.
      reject(err);
      ac.abort(err);
    }, timeoutMs);
  });
  try {
    return await Promise.race([work(ac.signal), expired]);
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener('abort', onParentAbort);
  }
}

/**
 * A deadline for synchronous loops (parsers): `check()` throws `VerifierTimeoutError` once `limitMs`
 * has passed since creation. `now` is injectable for tests.
 */
export function deadline(
  limitMs: number,
  what: string,
  now: () => number = () => performance.now(),
): { check(): void } {
  const end = now() + limitMs;
  return {
    check(): void {
      if (now() > end) throw new VerifierTimeoutError(what, limitMs);
    },
  };
}
