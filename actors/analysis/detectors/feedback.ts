/**
 * Tool feedback ignored: a command whose app reported an error, a divergence, a violation or a
 * warning (feedback-patterns.yaml), or that exited non-zero, and no later clean run of the same
 * app in that sandbox before the episode ended — the agent declared DONE or worked on other things.
 * An agent that gave up (FAIL) right after the error, with no other work in between, heeded it.
 */
import { actionFacts, type ActionFacts } from '../actions.js';
import type { Finding } from '../taxonomy.js';
import { finding, ofType, type Detector, type EpisodeView } from '../view.js';

/** The first line of the tool's own stderr (the harness's `engiloop:` notes left out). */
function firstLine(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim());
  return (lines.find((l) => l && !l.startsWith('engiloop:')) ?? lines.find(Boolean) ?? '').slice(0, 160);
}

function ignored(v: EpisodeView): Finding[] {
  const acts = actionFacts(v).filter((a) => a.command !== null);
  const end = ofType(v, 'agent.decided').at(-1);
  const out: Finding[] = [];
  const reported = new Set<string>();
  acts.forEach((a, i) => {
    const signal = a.feedback.length > 0 || (a.failed && !a.at.event.result.timedOut);
    const who = `${a.sandbox}/${a.program}`;
    if (!signal || reported.has(who)) return;
    const later = acts.slice(i + 1).filter((b) => b.sandbox === a.sandbox && b.program === a.program);
    const fixed = later.some((b) => !b.failed && !b.feedback.some((f) => f.kind !== 'warning'));
    if (fixed) return;
    const others = acts.slice(i + 1).filter((b) => b.program !== a.program).length;
    // Gave up (FAIL) with nothing else done since: the agent heeded the error, it did not ignore
    // it (repeating the same failing command is loop.repeated_failure).
    if (end?.event.decision.kind === 'fail' && others === 0) return;
    reported.add(who);
    const what: ActionFacts['feedback'][number] = a.feedback[0] ?? {
      kind: 'exit',
      line: `exit ${a.at.event.result.exitCode}: ${firstLine(a.at.event.result.stderr)}`,
    };
    const then =
      end?.event.decision.kind === 'done' ? `DONE in round ${end.round}` : 'the end of the episode';
    out.push(
      finding(
        'feedback.ignored',
        'feedback',
        end ? [a.at, end] : [a.at],
        `${a.program} in ${a.sandbox} reported ${what.kind} in round ${a.at.round} (${what.line}); no clean re-run before ${then}${others ? `, ${others} other command(s) in between` : ''}`,
      ),
    );
  });
  return out;
}

/** Tool feedback that the agent did not act on. */
export const feedbackDetector: Detector = { name: 'feedback', detect: ignored };
