/**
 * GUI episodes: the desktop and the app start after provisioning, each GUI action runs through the
 * xdotool driver, and every observation carries one fresh screenshot (stored in the object store by
 * digest) with the window list. The rules are AutoCAD-Bench's: a turn's actions run in order and
 * stop at the first that fails (the rest are recorded as skipped).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { EpisodeContext } from '../../machines/index.js';
import type { EventDraft } from '../../streams/index.js';
import type { CommandResult } from '../sandbox/index.js';
import type { Action } from '../../tasks/index.js';
import {
  launchApp,
  runGuiActions,
  screenshot,
  startDesktop,
  windows,
  type GuiAction,
} from '../sandbox/index.js';
import type { Sandbox } from '../sandbox/index.js';
import type { EffectScope } from './scope.js';
import { notRun, observationText } from './observe.js';

/** The sandbox GUI actions go to: the first one with a desktop. */
function guiSandbox(s: EffectScope): { name: string; sb: Sandbox } | null {
  for (const [name, spec] of Object.entries(s.lt.task.environment.sandboxes))
    if (spec.desktop) {
      const sb = s.sandboxes.get(name);
      if (sb) return { name, sb };
    }
  return null;
}

/** Starts the desktop of every sandbox that declares one, launches its app and waits for its window. */
export async function startDesktops(s: EffectScope): Promise<void> {
  const signal = s.opts.signal;
  for (const [name, spec] of Object.entries(s.lt.task.environment.sandboxes)) {
    if (!spec.desktop) continue;
    const sb = s.sandboxes.get(name)!;
    await startDesktop(sb, signal ? { signal } : {});
    if (spec.desktop.launch)
      await launchApp(sb, spec.desktop.launch, {
        ...(spec.desktop.window ? { title: new RegExp(spec.desktop.window) } : {}),
        timeoutMs: spec.desktop.timeout_sec * 1000,
        ...(signal ? { signal } : {}),
      });
  }
}

/** Runs one GUI action; a failure (off screen, bad key, xdotool error) is a result, not an error. */
export async function executeGui(
  s: EffectScope,
  action: Exclude<Action, { type: 'shell' } | { type: 'handoff' }>,
): Promise<CommandResult> {
  const gui = guiSandbox(s);
  if (!gui) return notRun(`action "${action.type}" needs a desktop sandbox; this task has none`);
  const out = await runGuiActions(
    gui.sb,
    [action as GuiAction],
    s.opts.signal ? { signal: s.opts.signal } : {},
  );
  const r = out.results[0]!;
  return r.ok
    ? { stdout: 'ok', stderr: '', exitCode: 0, durationMs: r.durationMs, truncated: false, timedOut: false }
    : {
        stdout: '',
        stderr: `${r.error!.code}: ${r.error!.message}`,
        exitCode: 1,
        durationMs: r.durationMs,
        truncated: false,
        timedOut: r.error!.code === 'TIMED_OUT',
      };
}

/** The observation of a GUI round: the action results, the window list and one fresh screenshot. */
export async function observeGui(s: EffectScope, ctx: EpisodeContext): Promise<EventDraft> {
  const gui = guiSandbox(s);
  const round = ctx.round + 1;
  if (!gui) return { type: 'observation.recorded', round, text: observationText(ctx, null) };
  const spec = s.lt.task.environment.sandboxes[gui.name]!.desktop!;
  const o = s.opts.signal ? { signal: s.opts.signal } : {};
  await sleep(spec.settle_ms, undefined, o);
  let shot = await screenshot(gui.sb, o);
  // A freshly started app may still be painting: the first screenshot waits until two in a row
  // agree (at most 10 tries), so a replay starts from the same picture.
  for (let i = 0; ctx.history.length === 0 && i < 10; i++) {
    await sleep(Math.max(200, spec.settle_ms), undefined, o);
    const next = await screenshot(gui.sb, o);
    const same = next.png.equals(shot.png);
    shot = next;
    if (same) break;
  }
  const wins = await windows(gui.sb, o);
  const digest = await s.deps.blobs.put(shot.png);
  const list = wins.list.map((w) => `  ${w.id === wins.focused?.id ? '*' : ' '} ${w.title}`).join('\n');
  const base =
    ctx.history.length === 0
      ? `Round 1 of ${ctx.rules.maxRounds}. The screen (${shot.width}×${shot.height}) is attached.`
      : observationText(ctx, null);
  return {
    type: 'observation.recorded',
    round,
    text: `${base}\nWindows (* = focused):\n${list || '  (none)'}`,
    screenshot: digest,
    images: [{ name: 'screenshot.png', mediaType: 'image/png', digest, bytes: shot.png.length }],
    windows: wins.list.map((w) => ({
      title: w.title,
      x: w.x,
      y: w.y,
      width: w.width,
      height: w.height,
      focused: w.id === wins.focused?.id,
    })),
  };
}
