/**
 * The rule for faults inside a sandbox: a fault the agent's own actions could have caused is the
 * agent's. Its action gets an error result naming the fault (`CommandResult.fault`) and the episode
 * goes on; only what the agent cannot reach (the engine, the image, NATS, the provider, the host)
 * is an infrastructure fault (`SandboxError`, `infra_error`).
 */
import type { CommandFault, CommandResult } from './result.js';

/** What a command's run showed, beyond its output. */
export interface RunFacts {
  /** The persistent shell died under the command (e.g. `kill -9 -1`, the OOM killer). */
  shellDied?: boolean;
  /** The whole container was restarted to get its processes back (a fork bomb that escaped). */
  restarted?: boolean;
  /** Processes the command left running that were killed before the result returned. */
  reaped?: number;
}

const PIDS =
  /fork: (retry: )?(Resource temporarily unavailable|Cannot allocate memory)|Cannot fork|fork failed/i;
const DISK = /No space left on device|Disk quota exceeded/;

/** The fault a command's result shows, or undefined. The first that applies wins. */
function commandFault(r: CommandResult, facts: RunFacts): CommandFault | undefined {
  if (facts.restarted)
    return {
      code: 'SANDBOX_RESTARTED',
      message:
        'the sandbox was restarted because its processes could not be stopped (process limit reached): the workspace is kept, /tmp and every process are gone',
    };
  if (facts.shellDied)
    return {
      code: 'SHELL_KILLED',
      message:
        'the shell was killed under this command (kill -1, or the out-of-memory killer); a new shell runs the next command, and shell state and background processes are gone',
    };
  const err = r.stderr;
  if (PIDS.test(err))
    return { code: 'PIDS_EXHAUSTED', message: 'the sandbox reached its process limit (resources.pids)' };
  if (DISK.test(err) || DISK.test(r.stdout))
    return { code: 'DISK_FULL', message: 'the sandbox reached its disk limit (limits.disk_mb)' };
  if (r.timedOut)
    return { code: 'TIMEOUT', message: 'the command ran past its timeout; its process tree was killed' };
  if (r.truncated)
    return { code: 'OUTPUT_CAP', message: 'the output passed limits.output_cap_bytes and was cut' };
  return undefined;
}

/** `r` with its fault and a note on processes killed, as the agent and the log see it. */
export function withFault(r: CommandResult, facts: RunFacts): CommandResult {
  const fault = commandFault(r, facts);
  const notes: string[] = [];
  if (fault && fault.code !== 'TIMEOUT' && fault.code !== 'OUTPUT_CAP')
    notes.push(`engiloop: ${fault.message}`);
  if (facts.reaped)
    notes.push(
      `engiloop: killed ${facts.reaped} process(es) this command left running (a task keeps a server with environment.sandboxes.<name>.services)`,
    );
  const stderr = notes.length
    ? `${r.stderr}${r.stderr && !r.stderr.endsWith('\n') ? '\n' : ''}${notes.join('\n')}\n`
    : r.stderr;
  return { ...r, stderr, ...(fault ? { fault } : {}) };
}
