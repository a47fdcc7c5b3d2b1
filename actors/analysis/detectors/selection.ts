/**
 * Wrong application (software-selection tasks): the agent did its work in an app it could not make
 * produce a passing deliverable — most of its commands there failed, or the app is not in that
 * sandbox (`command not found`) — while the task permitted another.
 */
import { actionFacts } from '../actions.js';
import type { Finding } from '../taxonomy.js';
import { finding, ofType, type Detector, type EpisodeView } from '../view.js';

function wrongApp(v: EpisodeView): Finding[] {
  if (v.task.type !== 'software-selection') return [];
  const verified = ofType(v, 'verification.completed').at(-1);
  if (!verified || verified.event.passed) return [];
  const acts = actionFacts(v).filter((a) => a.command !== null);
  const bySandbox = new Map<string, typeof acts>();
  for (const a of acts) bySandbox.set(a.sandbox, [...(bySandbox.get(a.sandbox) ?? []), a]);
  const [main] = [...bySandbox.entries()].sort((a, b) => b[1].length - a[1].length);
  if (!main) return [];
  const [sandbox, mine] = main;
  const failed = mine.filter((a) => a.failed || a.feedback.some((f) => f.kind === 'error'));
  const missingApp = mine.filter((a) => a.at.event.result.exitCode === 127);
  if (failed.length * 2 <= mine.length && missingApp.length === 0) return [];
  const others = Object.keys(v.task.environment.sandboxes).filter((s) => s !== sandbox);
  const why = missingApp.length
    ? `${missingApp.length} command(s) not found there (${missingApp[0]!.program})`
    : `${failed.length} of its ${mine.length} commands there failed`;
  return [
    finding(
      'selection.wrong_app',
      'selection',
      [...failed.slice(0, 5).map((a) => a.at), verified],
      `worked in sandbox ${sandbox} (${why}) and the deliverable failed; the task also permitted ${others.join(', ') || 'no other'}`,
    ),
  ];
}

/** The app chosen in a software-selection task, when it could not do the job. */
export const selectionDetector: Detector = { name: 'selection', detect: wrongApp };
