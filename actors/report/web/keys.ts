/** Keyboard of the episode page: j/k (arrows) move, n next flagged round, g jump to a round. */
import { h } from './dom.js';

/**
 * Listens on the document and adds a "jump to round" field before `host`'s first child.
 * Returns the function that stops listening.
 */
export function keyboard(
  host: HTMLElement,
  rounds: number[],
  flagged: number[],
  current: () => number | null,
  go: (round: number) => void,
): () => void {
  const input = h('input', {
    type: 'number',
    min: rounds[0] ?? 1,
    max: rounds.at(-1) ?? 1,
    placeholder: 'round',
    'aria-label': 'Jump to round',
    'data-testid': 'jump-input',
  });
  const jump = () => {
    const n = Number(input.value);
    if (!Number.isFinite(n) || rounds.length === 0) return;
    // The nearest recorded round (a round number may be missing).
    const best = rounds.reduce((a, b) => (Math.abs(b - n) < Math.abs(a - n) ? b : a));
    go(best);
  };
  input.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') {
      ev.preventDefault();
      jump();
      input.blur();
    } else if (ev.key === 'Escape') input.blur();
  });
  host.prepend(h('label', { class: 'jump' }, 'Jump to round ', input));
  const step = (d: number) => {
    const c = current();
    const i = c === null ? -1 : rounds.indexOf(c);
    const next = rounds[Math.max(0, Math.min(rounds.length - 1, i + d))];
    if (next !== undefined) go(next);
  };
  const onKey = (ev: KeyboardEvent) => {
    const t = ev.target as HTMLElement | null;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.isContentEditable)) return;
    if (document.querySelector('dialog[open]')) return;
    if (ev.key === 'j' || ev.key === 'ArrowDown') step(1);
    else if (ev.key === 'k' || ev.key === 'ArrowUp') step(-1);
    else if (ev.key === 'n') {
      const c = current() ?? -Infinity;
      const next = flagged.find((r) => r > c) ?? flagged[0];
      if (next !== undefined) go(next);
    } else if (ev.key === 'g') input.focus();
    else return;
    ev.preventDefault();
  };
  document.addEventListener('keydown', onKey);
  return () => document.removeEventListener('keydown', onKey);
}
