/**
 * The one retry loop of engiloop, with one budget. Every operation retried through a short outage (a
 * NATS leader election, a nats-server restart, a run record another worker may be writing) uses it,
 * and says with `retryable` which failures are worth another attempt. Only for idempotent operations.
 */

/** How many attempts a retried operation gets, and how long it waits between two of them. */
export interface RetryBudget {
  /** Attempts in all, the first included. */
  attempts: number;
  /** Wait after the first failure, in ms; it doubles after each further failure. */
  firstDelayMs: number;
  /** Longest wait between two attempts, in ms. */
  maxDelayMs: number;
}

/**
 * engiloop's retry budget: 9 attempts, waiting 250 ms, 500 ms, 1 s, 2 s, then 4 s between them —
 * 19.75 s of waiting in all. That outlasts a JetStream leader election (2–10 s) and a nats-server
 * restart on the same store (back in a few seconds), and still gives up soon enough that a fault which
 * does not pass by itself ends the episode as `infra_error` rather than hanging it.
 */
export const RETRY_BUDGET: Readonly<RetryBudget> = Object.freeze({
  attempts: 9,
  firstDelayMs: 250,
  maxDelayMs: 4_000,
});

/** Options of {@link retry}. */
export interface RetryOptions {
  /** Whether another attempt can help after this failure; any other failure is thrown at once. */
  retryable(err: unknown): boolean;
  /** Called before each wait: the failure, the attempt that failed (1-based), the wait in ms. */
  onRetry?(err: unknown, attempt: number, delayMs: number): void;
  /**
   * Stops retrying: once aborted, no further attempt starts and a wait under way ends at once; the
   * last failure is thrown (the caller maps it as usual and can tell the abort from its signal).
   */
  signal?: AbortSignal;
  /** Default {@link RETRY_BUDGET}. Only tests and a deliberately different loop pass another one. */
  budget?: Readonly<RetryBudget>;
}

/** The wait after the `failures`-th failure (1-based) under `budget`, in ms. */
export function retryDelayMs(failures: number, budget: Readonly<RetryBudget> = RETRY_BUDGET): number {
  return Math.min(budget.maxDelayMs, budget.firstDelayMs * 2 ** (failures - 1));
}

/**
 * Runs `op` (given the attempt number, 1-based), again after a backoff while it fails with an error
 * `o.retryable` accepts, up to the budget's attempts; then the last failure is thrown.
 *
 * @example
 * ```ts
 * const info = await retry(() => os.info(digest), { retryable: isTransient });
 * ```
 */
export async function retry<T>(op: (attempt: number) => Promise<T>, o: RetryOptions): Promise<T> {
  const budget = o.budget ?? RETRY_BUDGET;
  for (let attempt = 1; ; attempt++) {
    try {
      return await op(attempt);
    } catch (err) {
      if (attempt >= budget.attempts || o.signal?.aborted || !o.retryable(err)) throw err;
      const delayMs = retryDelayMs(attempt, budget);
      o.onRetry?.(err, attempt, delayMs);
      if (!(await wait(delayMs, o.signal))) throw err;
    }
  }
}

/** Waits `ms`; false when `signal` aborted first. */
function wait(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (ms <= 0) return Promise.resolve(!signal?.aborted);
  return new Promise((resolve) => {
    const done = (waited: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(waited);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
