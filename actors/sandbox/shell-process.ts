/**
 * The long-lived bash behind a persistent shell: one `docker exec` with stdin attached (hijacked
 * connection, no TTY) whose stdout and stderr are demultiplexed and handed to whoever listens.
 */
import { Writable, type Duplex } from 'node:stream';
import type Docker from 'dockerode';

/** Receives the shell's output while a command runs; output with no sink is dropped. */
export interface ShellSink {
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
  /** The exec ended: bash exited, was killed, or the container stopped. */
  closed(): void;
}

/** Prefix of every sentinel line; the nonce after it is fresh per command. */
export const SENTINEL_PREFIX = '__ENGILOOP_';

/** Commands longer than this go through a file in /tmp: one argv string may not pass 128 KiB. */
const MAX_INLINE = 100_000;

/**
 * Defines `__engi NONCE SECS CMD` in the shell. It runs the command in a child bash (so `exit`,
 * `cd` or `set -e` cannot touch the shell) under `timeout` with stdin from /dev/null, which kills the
 * command's whole process group when it runs too long. Then `__engi_reap` kills what the command
 * left running, and the sentinel goes out with the exit code and the number of processes killed on
 * stdout, and a sentinel on stderr.
 *
 * `__engi_reap` uses builtins only (glob, read, mapfile, [[ ]], kill): it must work while a fork
 * bomb holds every pid of the sandbox. It kills every process of uid 1000 but the shell itself and
 * the services (command lines matching one of `__ENGI_SERVICES`, and their descendants), whole
 * process groups first, and repeats until none is left (at most 64 passes). With
 * `__ENGI_KEEP_ALL=1` (desktop sandboxes) it does nothing.
 */
export const SHELL_PRELUDE = `__engi_reap() {
  __ENGI_KILLED=0
  [ "\${__ENGI_KEEP_ALL:-0}" = 1 ] && return 0
  local pass s p l st pp pg re cmd grew n forked naps=0
  local -a a
  local -A ppid pgid keep spare dead=()
  for ((pass = 0; pass < 64; pass++)); do
    ppid=(); pgid=(); keep=(); forked=0
    for s in /proc/[0-9]*/stat; do
      p=\${s#/proc/}; p=\${p%/stat}
      [ "$p" = "$$" ] && continue
      [[ -O /proc/$p ]] || continue
      read -r l 2>/dev/null <"$s" || continue
      set -- \${l##*) }
      st=$1 pp=$2 pg=$3
      [ "$st" = Z ] && continue
      ppid[$p]=$pp; pgid[$p]=$pg
      [ \${#__ENGI_SERVICES[@]} = 0 ] && continue
      a=(); mapfile -d '' -t a 2>/dev/null </proc/$p/cmdline
      cmd="\${a[*]}"
      for re in "\${__ENGI_SERVICES[@]}"; do
        [[ $cmd =~ $re ]] && { keep[$p]=1; break; }
      done
      [ -n "\${__ENGI_RUN:-}" ] && [ -z "\${keep[$p]:-}" ] && [ "$cmd" = "$__ENGI_RUN" ] && forked=1
    done
    # A child forked by \`cmd &\` has the command's own command line until it execs: wait for it
    # (25 ms at a time, 0.5 s at most) before judging whether it is a service.
    if [ $forked = 1 ] && ((naps < 20)); then
      naps=$((naps + 1)); pass=$((pass - 1))
      read -r -t 0.025 -u 9 _ 2>/dev/null
      continue
    fi
    # Descendants of a service are part of it.
    grew=1
    while [ $grew = 1 ]; do
      grew=0
      for p in "\${!ppid[@]}"; do
        [ -z "\${keep[$p]:-}" ] && [ -n "\${keep[\${ppid[$p]}]:-}" ] && { keep[$p]=1; grew=1; }
      done
    done
    spare=()
    for p in "\${!keep[@]}"; do spare[\${pgid[$p]}]=1; done
    n=0
    for p in "\${!ppid[@]}"; do
      [ -n "\${keep[$p]:-}" ] && continue
      pg=\${pgid[$p]}
      if [ "$pg" != "$$" ] && [ -z "\${spare[$pg]:-}" ]; then kill -9 -- "-$pg" 2>/dev/null; fi
      kill -9 "$p" 2>/dev/null
      n=$((n + 1))
      dead[$p]=1
    done
    __ENGI_KILLED=\${#dead[@]}
    [ $n = 0 ] && return 0
  done
}
# fd 9: a FIFO only this shell holds, so \`read -t\` on it is a sleep without a fork.
__ENGI_NAP=/tmp/.engiloop-nap.$$
mkfifo -m 600 "$__ENGI_NAP" 2>/dev/null && exec 9<>"$__ENGI_NAP"
rm -f "$__ENGI_NAP"
__engi() {
  local c="$3" rc f
  if [ \${#c} -lt ${MAX_INLINE} ]; then
    __ENGI_RUN="bash -c $c"
    timeout -k 2 "$2" bash -c "$c" </dev/null 9<&-
    rc=$?
  else
    f="/tmp/.engiloop-$1.sh"
    __ENGI_RUN="bash $f"
    printf %s "$c" >"$f"
    timeout -k 2 "$2" bash "$f" </dev/null 9<&-
    rc=$?
    rm -f "$f"
  fi
  __engi_reap
  __ENGI_RUN=
  printf '${SENTINEL_PREFIX}%s__ %d %d\\n' "$1" "$rc" "$__ENGI_KILLED"
  printf '${SENTINEL_PREFIX}%s__\\n' "$1" >&2
}
`;

/**
 * The shell variables that set what `__engi_reap` spares: `services` as bash regular expressions
 * (`null`: keep every process).
 */
export function reapSettings(services: readonly string[] | null): string {
  if (services === null) return '__ENGI_KEEP_ALL=1\n';
  return `__ENGI_KEEP_ALL=0; __ENGI_SERVICES=(${services.map(ansiCQuote).join(' ')})\n`;
}

/**
 * Quotes `command` as one bash word: `$'...'` with every byte that is not printable ASCII, and
 * every backslash and single quote, written as a hex escape (`\xHH`). Like base64 it cannot be
 * misparsed, but bash decodes it itself: no `base64` fork, about 2 ms less per command.
 * Bash strings cannot hold NUL; NULs are dropped.
 * @example ansiCQuote("it's") // returns the 10 characters $'it\x27s'
 */
export function ansiCQuote(command: string): string {
  let out = "$'";
  for (const byte of Buffer.from(command, 'utf8')) {
    if (byte === 0) continue;
    const plain = byte >= 0x20 && byte < 0x7f && byte !== 0x27 && byte !== 0x5c;
    out += plain ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return `${out}'`;
}

function forward(fn: (chunk: Buffer) => void): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, cb) {
      fn(chunk);
      cb();
    },
  });
}

/** One running bash exec. Create with `ShellProcess.spawn`. */
export class ShellProcess {
  /** Current listener; set by the command in flight. */
  sink: ShellSink | null = null;
  /** True once the exec's connection ended; a dead process is never reused. */
  dead = false;
  /** PID of bash inside the container; a `docker exec` process leads its own session. */
  pid = 0;

  private constructor(private readonly stream: Duplex) {}

  /** Starts `bash` as uid 1000 in `workdir`. Throws dockerode's errors unchanged. */
  static async spawn(docker: Docker, container: Docker.Container, workdir: string): Promise<ShellProcess> {
    const exec = await container.exec({
      Cmd: ['bash', '--noprofile', '--norc'],
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      User: '1000:1000',
      WorkingDir: workdir,
    });
    const stream = await exec.start({ hijack: true, stdin: true });
    const p = new ShellProcess(stream);
    docker.modem.demuxStream(
      stream,
      forward((c) => p.sink?.stdout(c)),
      forward((c) => p.sink?.stderr(c)),
    );
    const gone = (): void => {
      if (p.dead) return;
      p.dead = true;
      p.sink?.closed();
    };
    stream.on('end', gone);
    stream.on('close', gone);
    stream.on('error', gone);
    return p;
  }

  /** Writes to bash's stdin. */
  send(text: string): void {
    if (!this.dead) this.stream.write(text);
  }

  /** Closes stdin: bash exits after the current line. */
  end(): void {
    this.stream.end();
  }

  /** Drops the connection at once. */
  destroy(): void {
    this.dead = true;
    this.stream.destroy();
  }
}
