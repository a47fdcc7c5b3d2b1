/**
 * GUI episodes: rounds of input after which the screen did not change, the app losing the focus,
 * and clicks outside every window (from the window geometry the observation recorded).
 */
import type { ActionRecord, ObservationRecorded } from '../../../streams/index.js';
import type { Finding } from '../taxonomy.js';
import { finding, ofType, type Detector, type EpisodeView, type Located } from '../view.js';

const INPUT = new Set<ActionRecord['type']>(['click', 'double_click', 'drag', 'scroll', 'key', 'type']);

/** The focused window's title in an observation's text (`* title` under "Windows"), or null. */
function focusedTitle(text: string): string | null {
  const at = text.indexOf('Windows (* = focused):');
  if (at < 0) return null;
  const line = text
    .slice(at)
    .split('\n')
    .find((l) => l.startsWith('  * '));
  return line ? line.slice(4) : null;
}

function noEffect(v: EpisodeView, obs: Located<ObservationRecorded>[]): Finding[] {
  const acted = new Map<number, Located[]>();
  for (const a of ofType(v, 'action.executed'))
    if (INPUT.has(a.event.action.type) && !a.event.result.skipped)
      acted.set(a.round, [...(acted.get(a.round) ?? []), a]);
  const hits: Located[] = [];
  const rounds: number[] = [];
  for (let i = 1; i < obs.length; i++) {
    const before = obs[i - 1]!;
    const after = obs[i]!;
    const inputs = acted.get(before.round);
    if (!inputs || !before.event.screenshot || before.event.screenshot !== after.event.screenshot) continue;
    hits.push(...inputs, after);
    rounds.push(before.round);
  }
  if (rounds.length === 0) return [];
  return [
    finding(
      'gui.no_effect',
      'gui',
      hits,
      `${rounds.length} round(s) of input left the screen unchanged (rounds ${rounds.join(', ')})`,
    ),
  ];
}

function focusLost(obs: Located<ObservationRecorded>[]): Finding[] {
  const app = obs.map((o) => focusedTitle(o.event.text)).find((t) => t !== null);
  if (!app) return [];
  const lost = obs.filter(
    (o) => o.event.text.includes('Windows (* = focused):') && focusedTitle(o.event.text) === null,
  );
  if (lost.length === 0) return [];
  return [
    finding(
      'gui.focus_lost',
      'gui',
      lost,
      `no window had the focus in ${lost.length} observation(s) (rounds ${lost.map((o) => o.round).join(', ')}); at first it was "${app.slice(0, 80)}"`,
    ),
  ];
}

function clicksOutside(v: EpisodeView, obs: Located<ObservationRecorded>[]): Finding[] {
  const out: Located[] = [];
  let last: ObservationRecorded | undefined;
  let i = 0;
  for (const a of ofType(v, 'action.executed')) {
    while (i < obs.length && obs[i]!.seq < a.seq) last = obs[i++]!.event;
    const act = a.event.action;
    if ((act.type !== 'click' && act.type !== 'double_click') || !last?.windows?.length) continue;
    const inside = last.windows.some(
      (w) => act.x >= w.x && act.x < w.x + w.width && act.y >= w.y && act.y < w.y + w.height,
    );
    if (!inside) out.push(a);
  }
  if (out.length === 0) return [];
  const where = out.map((l) => {
    const act = l.event.type === 'action.executed' ? l.event.action : null;
    return act && 'x' in act ? `(${act.x}, ${act.y}) in round ${l.round}` : '';
  });
  return [
    finding(
      'gui.click_outside',
      'gui',
      out,
      `${out.length} click(s) outside every window: ${where.join('; ')}`,
    ),
  ];
}

/** GUI input without effect, lost focus, clicks outside windows. */
export const guiDetector: Detector = {
  name: 'gui',
  detect(v) {
    if (v.task.interface !== 'gui') return [];
    const obs = ofType(v, 'observation.recorded');
    return [...noEffect(v, obs), ...focusLost(obs), ...clicksOutside(v, obs)];
  },
};
