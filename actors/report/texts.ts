/**
 * Long texts of a report: the head stays inline, the whole goes to a `text:<name>` file named by
 * its content's digest (so a text seen twice is written once).
 */
import { createHash } from 'node:crypto';
import { INLINE_TEXT, type TextData } from './format.js';

/** Collects the whole texts that were cut, by name. */
export class TextFiles {
  readonly files = new Map<string, string>();

  /** `s` cut to {@link INLINE_TEXT} characters; the whole kept as a file when it was cut. */
  cut(s: string, limit = INLINE_TEXT): TextData {
    if (s.length <= limit) return { text: s, length: s.length };
    const name = createHash('sha256').update(s).digest('hex').slice(0, 24);
    this.files.set(name, s);
    return { text: s.slice(0, limit), full: name, length: s.length };
  }
}

/** A one-line description of an action (the command's first line, or the GUI action and where). */
export function actionLabel(a: Record<string, unknown>): string {
  const t = String(a.type);
  const at = (x: unknown, y: unknown) => `(${String(x)}, ${String(y)})`;
  switch (t) {
    case 'shell':
      return String(a.command).split('\n')[0]!.slice(0, 200);
    case 'click':
    case 'double_click':
    case 'move':
      return `${t} ${at(a.x, a.y)}${a.button && a.button !== 'left' ? ` ${String(a.button)}` : ''}`;
    case 'drag': {
      const [f, to] = [a.from as number[], a.to as number[]];
      return `drag ${at(f?.[0], f?.[1])} → ${at(to?.[0], to?.[1])}`;
    }
    case 'scroll':
      return `scroll ${at(a.x, a.y)} by ${at(a.dx, a.dy)}`;
    case 'key':
      return `key ${String(a.keys)}`;
    case 'type':
      return `type ${JSON.stringify(String(a.text)).slice(0, 120)}`;
    case 'wait':
      return `wait ${String(a.seconds)} s${a.until ? ` until ${JSON.stringify(a.until)}` : ''}`;
    case 'handoff':
      return `hand off ${String(a.from)}:${String(a.path)} → ${String(a.to)}:${String(a.dest ?? a.path)}`;
    default:
      return t;
  }
}
