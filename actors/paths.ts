/** Where engiloop's own files and its data live. */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The package's root folder (works from sources and from dist/). */
export function packageRoot(): string {
  if (root) return root;
  let d = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const p = join(d, 'package.json');
    if (existsSync(p) && (JSON.parse(readFileSync(p, 'utf8')) as { name?: string }).name === 'engiloop')
      return (root = d);
    const up = dirname(d);
    if (up === d)
      throw new Error('cannot find engiloop package.json above ' + fileURLToPath(import.meta.url));
    d = up;
  }
}

/** Data home: `$ENGILOOP_HOME`, default `~/.engiloop` (embedded NATS store, run artifacts). */
export function engiloopHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.ENGILOOP_HOME ?? join(homedir(), '.engiloop');
}
