/**
 * Deliverable not verified before DONE (command-line tasks): after the last command that wrote a
 * deliverable, no command read it again — no inspection, measurement, re-run or view (a later part
 * of the same command line counts). A command "writes" a file when it names it as a redirection, output option or save/export call target
 * (`doc.saveas("x.dxf")`, `bpy.ops.export_scene.gltf(filepath="x.glb")`, on the call's line);
 * any other command naming it reads it. A longer name (`part.stl.bak`) is another file.
 */
import { actionFacts } from '../actions.js';
import type { Finding } from '../taxonomy.js';
import { finding, ofType, type Detector, type EpisodeView } from '../view.js';

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Characters before a mention of the file that can make it a write target (`cp a b … file`). */
const WINDOW = 512;
/** Mentions looked at in one command part: the first and the last this many. */
const MENTIONS = 16;

/**
 * True when `command` names `file` as something it writes. The command is the agent's text, so
 * the pattern only ever sees a short window before each mention (at most 2 × 16 mentions): a
 * 256 KiB command costs milliseconds, not the seconds a backtracking match over it would.
 */
export function writes(command: string, file: string): boolean {
  const lower = command.toLowerCase();
  const name = file.toLowerCase();
  const at: number[] = [];
  for (let i = lower.indexOf(name); i >= 0; i = lower.indexOf(name, i + 1)) at.push(i);
  const picked = at.length > 2 * MENTIONS ? [...at.slice(0, MENTIONS), ...at.slice(-MENTIONS)] : at;
  const re = writePattern(file);
  return picked.some((i) => re.test(command.slice(Math.max(0, i - WINDOW), i + file.length + 1)));
}

function writePattern(file: string): RegExp {
  const f = `['"]?(?:[^\\s'"]*/)?${esc(file)}(?![\\w.-])`;
  return new RegExp(
    `(>>?\\s*|\\btee\\s+(-a\\s+)?|\\s-o\\s*=?\\s*|--output[= ]|--export[\\w-]*[= ]|\\b(cp|mv|install)\\s.*\\s)${f}|\\b\\w*(save|export|write)[\\w.]*\\s*\\([^\\n]*?['"](?:[^'"]*/)?${esc(file)}['"]`,
    'i',
  );
}

/**
 * A command's parts, split at `&&`, `||`, `;`, `|` and line ends (heredoc lines too), so that
 * `openscad -o part.stl part.scad && ls -l part.stl` reads part.stl after writing it.
 */
const segments = (command: string): string[] => command.split(/&&|\|\||[;|\n]/);

function unverified(v: EpisodeView): Finding[] {
  if (v.task.interface !== 'cli') return [];
  const done = ofType(v, 'agent.decided').at(-1);
  if (done?.event.decision.kind !== 'done') return [];
  const acts = actionFacts(v).filter((a) => a.command !== null && !a.at.event.result.skipped);
  const out: Finding[] = [];
  for (const d of v.task.deliverables) {
    const name = d.path.split('/').at(-1)!;
    const mention = new RegExp(`(^|[^\\w.-])${esc(name)}(?![\\w.-])`);
    const named = acts.flatMap((a) =>
      segments(a.command!).flatMap((part) => (mention.test(part) ? [{ a, part }] : [])),
    );
    const lastPart = named.at(-1);
    if (lastPart && !writes(lastPart.part, name)) continue;
    const last = lastPart?.a;
    out.push(
      finding(
        'verification.unverified_done',
        'unverified',
        last ? [last.at, done] : [done],
        last
          ? `${d.path} was last written in round ${last.at.round} and not read again before DONE in round ${done.round}`
          : `no command named ${d.path} before DONE in round ${done.round}`,
      ),
    );
  }
  return out;
}

/** DONE without checking the deliverable after its last change. */
export const unverifiedDetector: Detector = { name: 'unverified', detect: unverified };
