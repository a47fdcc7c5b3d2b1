/** The round detail panel: observation, screenshot, the agent's output, each action and its output. */
import type { ActionData, EpisodeData, RoundData, TextData } from '../format.js';
import { loadText } from './data.js';
import { h, type Child } from './dom.js';
import { dur, int, num, usd } from './fmt.js';
import { screenshot } from './shot.js';

/** A text in a `<pre>`, with "show full output" loading the `text:` file when it was cut. */
function textBlock(label: string, t: TextData, testid: string): HTMLElement | null {
  if (t.length === 0 && t.text === '') return null;
  const pre = h('pre', { 'data-testid': testid }, t.text);
  const full = t.full;
  const more =
    full === undefined
      ? null
      : h(
          'button',
          {
            type: 'button',
            'data-testid': 'show-full',
            onclick: (ev: Event) => {
              const btn = ev.currentTarget as HTMLButtonElement;
              btn.disabled = true;
              btn.textContent = 'loading…';
              loadText(full).then(
                (text) => {
                  pre.textContent = text;
                  btn.remove();
                },
                (e: unknown) => {
                  btn.textContent = `could not load: ${(e as Error).message}`;
                },
              );
            },
          },
          `show full output (${int(t.length)} characters)`,
        );
  return h('div', { class: 'text-block' }, h('h4', null, label), pre, more);
}

function action(a: ActionData): HTMLElement {
  const bad = a.timedOut || (a.exitCode !== null && a.exitCode !== 0) || a.fault !== null;
  const flags = [a.timedOut && 'timed out', a.skipped && 'skipped', a.fault && `fault: ${a.fault}`].filter(
    (x): x is string => typeof x === 'string',
  );
  return h(
    'div',
    { class: `action${bad ? ' bad' : ''}`, 'data-testid': 'action' },
    h('div', { class: 'action-head' }, h('code', { 'data-testid': 'action-label' }, a.label)),
    h(
      'p',
      { class: 'muted' },
      `#${a.index} · ${a.sandbox} · exit ${a.exitCode ?? '–'} · ${dur(a.durationMs)}`,
      flags.length ? h('span', { class: 'warn' }, ` · ${flags.join(' · ')}`) : null,
    ),
    textBlock('stdout', a.stdout, 'stdout'),
    textBlock('stderr', a.stderr, 'stderr'),
  );
}

function decision(r: RoundData): Child {
  const d = r.decision;
  if (!d) return h('p', { class: 'muted' }, 'No agent output this round.');
  const c = d.call;
  return h(
    'div',
    { class: 'decision', 'data-testid': 'decision' },
    h('p', null, h('strong', null, d.kind), d.note ? ` — ${d.note}` : ''),
    h(
      'p',
      { class: 'muted' },
      c
        ? `${c.provider}:${c.model} · tokens in ${int(c.input)} / out ${int(c.output)} / cached ${int(c.cached)} · ${usd(c.costUsd)} · ${dur(c.latencyMs)} · stop ${c.stopReason ?? '–'}`
        : `latency ${dur(d.latencyMs)}`,
      d.retries.length ? ` · ${d.retries.length} provider retr${d.retries.length === 1 ? 'y' : 'ies'}` : '',
    ),
    d.retries.length
      ? h(
          'ul',
          null,
          d.retries.map((x) =>
            h('li', null, `attempt ${x.attempt}: ${x.message} (waited ${dur(x.delayMs)})`),
          ),
        )
      : null,
    textBlock('raw output', d.raw, 'raw'),
  );
}

/** The detail of one round of `ep`. */
export function roundDetail(ep: EpisodeData, r: RoundData): HTMLElement {
  const o = r.observation;
  return h(
    'div',
    { class: 'round-detail', 'data-testid': 'round-detail', 'data-round': r.round },
    h(
      'h3',
      null,
      `Round ${r.round}`,
      h('span', { class: 'muted' }, ` · +${dur(r.atMs)} · ${r.sandboxes.join(', ') || '–'}`),
    ),
    r.modes.length ? h('p', { class: 'warn' }, `Cited by: ${r.modes.join(', ')}`) : null,
    h('h4', null, 'Observation'),
    o ? textBlock('text', o.text, 'observation') : h('p', { class: 'muted' }, 'None recorded.'),
    o?.screenshot ? screenshot(o.screenshot, r.round, r.actions) : null,
    h('h4', null, 'Agent output'),
    decision(r),
    h('h4', null, `Actions (${r.actions.length})`),
    r.actions.map(action),
    h('p', { class: 'muted' }, `episode ${ep.id} · score so far ${num(ep.score, 2)}`),
  );
}
