/**
 * Exit codes. 0: every episode ran (whatever it scored) / the command did its job.
 * 1: at least one episode ended in infra_error. 2: bad input (invalid task, unknown agent or flag).
 * 3: the environment is unusable (NATS or Docker unreachable, image build failed).
 */
export const EXIT = { OK: 0, INFRA: 1, BAD_INPUT: 2, ENV: 3 } as const;

/** An error that ends the command with a given exit code and a message for the user. */
export class CliExit extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Parses a whole-number flag; anything else is bad input naming the flag. */
export function wholeNumber(flag: string, value: string, min = 1, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new CliExit(
      EXIT.BAD_INPUT,
      `--${flag} must be a whole number ≥ ${min}${max < Number.MAX_SAFE_INTEGER ? ` and ≤ ${max}` : ''} (got "${value}")`,
    );
  return n;
}

/**
 * Ctrl-C (or SIGTERM) handling for long commands: the first signal aborts the returned signal and
 * prints `message`; a second quits at once (exit 130). `dispose()` removes the handlers.
 */
export function onInterrupt(message: string): { signal: AbortSignal; dispose(): void } {
  const ac = new AbortController();
  let count = 0;
  const handler = () => {
    if (++count > 1) process.exit(130);
    console.error(`\n${message} (Ctrl-C again to quit now)`);
    ac.abort();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: ac.signal,
    dispose: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
