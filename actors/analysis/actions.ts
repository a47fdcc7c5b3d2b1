/** The agent's actions as the detectors see them: what ran where, and whether it went wrong. */
import type { ActionExecuted } from '../../streams/index.js';
import { defaultSandbox } from '../../tasks/index.js';
import { feedbackPatterns, type AppFeedback } from './feedback-patterns.js';
import { ofType, type EpisodeView, type Located } from './view.js';

/** One executed action with what the detectors need. */
export interface ActionFacts {
  at: Located<ActionExecuted>;
  /** `sandbox` + command for a shell action, the action's JSON otherwise: equal keys, same action. */
  key: string;
  sandbox: string;
  /** The shell command, or null for a GUI action or a hand-off. */
  command: string | null;
  /** The app whose patterns apply (see feedback-patterns.yaml), or the command's first word. */
  program: string;
  /** Exit ≠ 0, timed out or a fault. Skipped actions are never failed. */
  failed: boolean;
  /** Tool messages that matched a pattern (kind and the matching line). */
  feedback: { kind: string; line: string }[];
}

function firstWord(command: string): string {
  const words = command.replace(/^\s*(cd\s+\S+\s*&&\s*)+/, '').match(/[A-Za-z0-9_.\-/]+/);
  return words ? words[0].split('/').at(-1)! : 'shell';
}

function matches(app: AppFeedback, text: string): { kind: string; line: string }[] {
  const out: { kind: string; line: string }[] = [];
  for (const p of app.patterns) {
    const m = p.regex.exec(text);
    if (!m) continue;
    const start = text.lastIndexOf('\n', m.index) + 1;
    const end = text.indexOf('\n', m.index);
    out.push({
      kind: p.kind,
      line: text
        .slice(start, end < 0 ? undefined : end)
        .trim()
        .slice(0, 200),
    });
  }
  return out;
}

/** The executed actions of the view, in order. */
export function actionFacts(v: EpisodeView): ActionFacts[] {
  const apps = feedbackPatterns();
  const main = defaultSandbox(v.task);
  return ofType(v, 'action.executed').map((at) => {
    const a = at.event.action;
    const r = at.event.result;
    const command = a.type === 'shell' ? a.command : null;
    const sandbox = a.type === 'shell' ? (a.sandbox ?? main) : a.type === 'handoff' ? a.from : main;
    const app = command === null ? undefined : apps.find((x) => x.commands.test(command));
    const failed =
      !r.skipped && (r.timedOut || r.fault !== undefined || (r.exitCode !== null && r.exitCode !== 0));
    return {
      at,
      key: command === null ? JSON.stringify(a) : `${sandbox}$ ${command.trim()}`,
      sandbox,
      command,
      program: app?.app ?? (command === null ? a.type : firstWord(command)),
      failed,
      feedback: app && !r.skipped ? matches(app, `${r.stdout}\n${r.stderr}`) : [],
    };
  });
}
