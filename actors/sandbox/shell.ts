/**
 * The persistent shell: every command of a sandbox goes through one long-lived bash, so a command
 * costs a few milliseconds instead of a fresh `docker exec`. Commands are serialised, each runs in
 * a child bash under `timeout`, and a sentinel on both streams marks its end.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type Docker from 'dockerode';
import type { CommandResult } from './result.js';
import { Capture } from './capture.js';
import { toSandboxError } from './docker-errors.js';
import { SandboxError } from './errors.js';
import { execOnce } from './exec-once.js';
import { withFault, type RunFacts } from './faults.js';
import { SENTINEL_PREFIX, SHELL_PRELUDE, ShellProcess, ansiCQuote, reapSettings } from './shell-process.js';
import type { ExecOptions } from './types.js';

/** `timeout -k` grace before SIGKILL, in ms. Keep in step with SHELL_PRELUDE. */
const KILL_GRACE_MS = 2_000;
/** Past timeout + kill grace + this, the shell counts as wedged. */
const WATCHDOG_SLACK_MS = 3_000;
/** How long a new shell may take to answer its first line. */
const START_TIMEOUT_MS = 15_000;

/** Re-reads of a container's state (100 ms apart) before a dead shell is put down to bash alone. */
const STATE_SETTLE_TRIES = 10;

/** Kills every process of one session (the old shell's) with a /proc walk: no procps needed. */
const KILL_SESSION = `sid=$1
for s in /proc/[0-9]*/stat; do
  p=\${s#/proc/}; p=\${p%/stat}
  [ "$p" = "$$" ] && continue
  read -r l <"$s" 2>/dev/null || continue
  set -- \${l##*) }
  [ "$4" = "$sid" ] && kill -9 "$p" 2>/dev/null
done
exit 0`;

/** Where the shell runs. */
export interface ShellHost {
  docker: Docker;
  container: Docker.Container;
  workdir: string;
  /** Command lines allowed to outlive their command (`null`: every process stays). Default `[]`. */
  services?: readonly string[] | null | undefined;
}

/** Tries of the kill exec after a wedge, 300 ms apart (a fork bomb may hold every pid for a moment). */
const KILL_TRIES = 5;

type Outcome = 'done' | 'wedged' | 'died' | 'aborted';

interface RoundTrip {
  outcome: Outcome;
  out: Capture;
  err: Capture;
}

/** Sends `line` and waits for both sentinels of `nonce`, the deadline, death or abort. */
function roundTrip(
  proc: ShellProcess,
  line: string,
  nonce: string,
  capBytes: number,
  deadlineMs: number,
  signal?: AbortSignal,
): Promise<RoundTrip> {
  const marker = Buffer.from(`${SENTINEL_PREFIX}${nonce}__`);
  const out = new Capture(marker, capBytes);
  const err = new Capture(marker, capBytes);
  return new Promise<RoundTrip>((resolve) => {
    const finish = (outcome: Outcome): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      proc.sink = null;
      resolve({ outcome, out, err });
    };
    const onAbort = (): void => finish('aborted');
    const timer = setTimeout(() => finish('wedged'), deadlineMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    proc.sink = {
      stdout: (c) => out.push(c) && err.done && finish('done'),
      stderr: (c) => err.push(c) && out.done && finish('done'),
      closed: () => finish('died'),
    };
    if (proc.dead) finish('died');
    else proc.send(line);
  });
}

const nonce = (): string => randomBytes(8).toString('hex');

/**
 * One persistent bash per sandbox. `run` never throws for what the command does (non-zero exit,
 * timeout, too much output); it throws `SandboxError('CONTAINER_GONE')` when the container died,
 * and the signal's reason when aborted.
 */
export class PersistentShell {
  private proc: ShellProcess | null = null;
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** Reaper settings the live bash has not been given yet (see `setServices`). */
  private pendingReap: string | null = null;

  constructor(private readonly host: ShellHost) {}

  /** Starts bash now, so a broken image or container fails at creation rather than at first use. */
  start(): Promise<void> {
    return this.enqueue(async () => {
      await this.ensure();
    });
  }

  /** Runs `command` (bash) in the workdir; queued behind any command still running. */
  run(command: string, opts: ExecOptions): Promise<CommandResult> {
    return this.enqueue(() => this.runNow(command, opts));
  }

  /**
   * Changes which processes outlive their command (`null`: all, e.g. once a desktop runs); applies
   * from the next command on.
   */
  setServices(services: readonly string[] | null): void {
    this.host.services = services;
    this.pendingReap = reapSettings(services);
  }

  /** Ends bash (stdin EOF). Idempotent; later `run` calls fail with `CONTAINER_GONE`. */
  close(): void {
    this.closed = true;
    const p = this.proc;
    this.proc = null;
    if (p && !p.dead) {
      p.end();
      // bash exits on EOF; drop the connection in any case so no socket outlives the sandbox.
      setTimeout(() => p.destroy(), 1_000).unref();
    }
  }

  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }

  private async runNow(command: string, opts: ExecOptions): Promise<CommandResult> {
    opts.signal?.throwIfAborted();
    const proc = await this.ensure();
    const started = performance.now();
    const id = nonce();
    const secs = (Math.max(1, opts.timeoutMs) / 1000).toFixed(3);
    const line = `${this.pendingReap ?? ''}__engi ${id} ${secs} ${ansiCQuote(command)}\n`;
    this.pendingReap = null;
    const deadline = opts.timeoutMs + KILL_GRACE_MS + WATCHDOG_SLACK_MS;
    const r = await roundTrip(proc, line, id, opts.outputCapBytes, deadline, opts.signal);
    const durationMs = Math.round(performance.now() - started);
    const result = (exitCode: number | null, timedOut: boolean, facts: RunFacts = {}): CommandResult =>
      withFault(
        {
          stdout: r.out.text(),
          stderr: r.err.text(),
          exitCode,
          durationMs,
          truncated: r.out.truncated || r.err.truncated,
          timedOut,
        },
        facts,
      );
    switch (r.outcome) {
      case 'done': {
        const [rc, killed] = (r.out.trailer ?? '')
          .trim()
          .split(' ')
          .map((x) => Number.parseInt(x, 10));
        const code = rc ?? Number.NaN;
        // 124/137 alone could be the command's own exit code; the clock says whether timeout fired.
        const timedOut = (code === 124 || code === 137) && durationMs >= opts.timeoutMs;
        return result(Number.isNaN(code) ? null : code, timedOut, { reaped: killed || 0 });
      }
      case 'wedged': {
        const restarted = await this.recover(proc);
        return result(null, true, { restarted });
      }
      case 'aborted':
        await this.recover(proc);
        throw opts.signal?.reason ?? new Error('aborted');
      case 'died':
        // The container stopped (throws), or only bash died: `kill -9 -1` or the OOM killer. The
        // container's own process is root's, so it stays: the next command gets a new shell.
        await this.assertRunning('running a command');
        this.proc = null;
        return result(null, false, { shellDied: true });
    }
  }

  /** The live bash, spawning one (and checking it answers) when there is none. */
  private async ensure(): Promise<ShellProcess> {
    if (this.closed) throw new SandboxError('CONTAINER_GONE', 'The sandbox is closed');
    if (this.proc && !this.proc.dead) return this.proc;
    const { docker, container, workdir } = this.host;
    let proc: ShellProcess;
    try {
      proc = await ShellProcess.spawn(docker, container, workdir);
    } catch (err) {
      throw toSandboxError(err, {
        docker,
        doing: 'starting the shell',
        container: container.id,
        fallback: 'SANDBOX_IO',
      });
    }
    const id = nonce();
    // A new shell first kills what an old one left (after `kill -9 -1` or a wedge).
    const hello = `${SHELL_PRELUDE}${reapSettings(this.host.services === undefined ? [] : this.host.services)}__engi_reap; printf '${SENTINEL_PREFIX}%s__ %d\\n' ${id} $$; printf '${SENTINEL_PREFIX}%s__\\n' ${id} >&2\n`;
    const r = await roundTrip(proc, hello, id, 4096, START_TIMEOUT_MS);
    const pid = Number.parseInt(r.out.trailer ?? '', 10);
    if (r.outcome !== 'done' || Number.isNaN(pid)) {
      proc.destroy();
      await this.assertRunning('starting the shell');
      throw new SandboxError(
        'SANDBOX_IO',
        `The shell (bash) did not start in container ${container.id.slice(0, 12)} (${r.outcome}): ${r.err.text().trim()}`,
      );
    }
    proc.pid = pid;
    this.proc = proc;
    return proc;
  }

  /**
   * After a wedge or abort: kill everything the old shell started, then start a new shell. When no
   * exec can start (a fork bomb holding every pid) the container is restarted: its workspace volume
   * stays, its processes and /tmp go. Returns whether it was restarted.
   */
  private async recover(old: ShellProcess): Promise<boolean> {
    old.destroy();
    this.proc = null;
    const { docker, container } = this.host;
    let killed = false;
    for (let attempt = 0; attempt < KILL_TRIES && !killed; attempt++) {
      try {
        const r = await execOnce(docker, container, [
          'bash',
          '-c',
          KILL_SESSION,
          'engiloop-kill',
          String(old.pid),
        ]);
        killed = r.exitCode === 0;
      } catch {
        await this.assertRunning('killing a wedged shell');
        if (attempt === KILL_TRIES - 1) break;
      }
      if (!killed) await new Promise((r) => setTimeout(r, 300));
    }
    if (!killed) {
      try {
        await container.restart({ t: 0 });
      } catch (err) {
        throw toSandboxError(err, {
          docker,
          doing: 'restarting a sandbox whose processes could not be killed',
          container: container.id,
          fallback: 'CONTAINER_GONE',
        });
      }
    }
    await this.ensure();
    return !killed;
  }

  /**
   * Throws `CONTAINER_GONE` unless the container is running. The exec's connection can close a
   * moment before the engine marks a killed container stopped, so a running state is re-read a few
   * times before it is believed.
   */
  private async assertRunning(doing: string): Promise<void> {
    const { docker, container } = this.host;
    let state: Docker.ContainerInspectInfo['State'];
    for (let attempt = 0; ; attempt++) {
      try {
        state = (await container.inspect()).State;
      } catch (err) {
        throw toSandboxError(err, { docker, doing, container: container.id, fallback: 'CONTAINER_GONE' });
      }
      if (!state.Running || attempt >= STATE_SETTLE_TRIES) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!state.Running) {
      throw new SandboxError(
        'CONTAINER_GONE',
        `Container ${container.id.slice(0, 12)} stopped while ${doing} (status ${state.Status}, exit ${state.ExitCode}${state.OOMKilled ? ', OOM-killed' : ''})`,
      );
    }
  }
}
