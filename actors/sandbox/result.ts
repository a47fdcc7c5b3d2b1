/**
 * What a command in a sandbox gives back: the sandbox's own type. Events record it as
 * `CommandResultRecord` (streams/), converted field by field in actors/episode/records.ts, so a field
 * added here reaches the stored format only deliberately.
 */

/** Output of one command, or a reference to it in the object store when large. */
export interface CommandResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  durationMs: number;
  /** Output went past the cap and was cut. */
  truncated: boolean;
  /** The command ran past its timeout and was killed. */
  timedOut: boolean;
  /** SHA-256 digests of the full stdout/stderr in the object store, when either exceeded 64 KiB. */
  blobs?: { stdout?: string; stderr?: string };
  /** Not run: an earlier GUI action of the same turn failed (AutoCAD-Bench's stop-at-first-failure). */
  skipped?: boolean;
  /**
   * A fault the command ran into that its own actions could have caused: scored as the agent's,
   * never as infra_error (see faults.ts).
   */
  fault?: CommandFault;
}

/** Why a command's result is an error the agent caused (kill -1, fork bomb, disk full, a cap). */
export interface CommandFault {
  code:
    | 'SHELL_KILLED'
    | 'SANDBOX_RESTARTED'
    | 'PIDS_EXHAUSTED'
    | 'DISK_FULL'
    | 'TIMEOUT'
    | 'OUTPUT_CAP'
    | 'FILE_CAP'
    | 'REQUEST_CAP';
  message: string;
}
