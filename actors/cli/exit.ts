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
