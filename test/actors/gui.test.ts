/**
 * The GUI driver against the real `engiloop/desktop:latest` image: desktop start, screenshots,
 * actions with visible effects, the stop-at-first-failure rule, and the first-run dialogs of
 * LibreCAD, FreeCAD and KiCad answered by the image's seeded settings. Pure key and action
 * planning is tested first, without Docker.
 */
import Docker from 'dockerode';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DESKTOP_SCREEN,
  DockerSandboxProvider,
  guiTurn,
  isGuiUnavailable,
  launchApp,
  planGuiAction,
  runGuiActions,
  screenshot,
  startDesktop,
  toXdotoolKeys,
  waitForWindow,
  windows,
  type GuiLimits,
  type Sandbox,
} from '../../actors/sandbox/index.js';
import {
  CLI_IMAGE,
  labelledContainers,
  removeLabelled,
  sandboxOptions,
  uniqueTestLabels,
} from '../helpers/docker.js';

const DESKTOP_IMAGE = 'engiloop/desktop:latest';
const docker = new Docker();
const labels = uniqueTestLabels('gui');
const provider = new DockerSandboxProvider({ docker });
const limits: GuiLimits = {
  screen: DESKTOP_SCREEN,
  typeDelayMs: 12,
  maxWaitSeconds: 60,
  maxScrollNotches: 50,
  dragSteps: 4,
};
const run = { timeoutMs: 15_000, outputCapBytes: 65_536 };

/** Pixels that differ between two PNGs of the same size (pixelmatch, default threshold). */
function changedPixels(a: Buffer, b: Buffer): number {
  const pa = PNG.sync.read(a);
  const pb = PNG.sync.read(b);
  return pixelmatch(pa.data, pb.data, undefined, pa.width, pa.height);
}

/** Number of distinct colours in a PNG (sampled every 7th pixel): 1 for a blank screen. */
function colours(png: Buffer): number {
  const { data } = PNG.sync.read(png);
  const seen = new Set<number>();
  for (let i = 0; i < data.length; i += 4 * 7)
    seen.add((data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!);
  return seen.size;
}

describe('key names and action planning (pure)', () => {
  it('maps AutoCAD-Bench style key names to xdotool keysyms', () => {
    expect(toXdotoolKeys('ctrl+s')).toEqual(['ctrl+s']);
    expect(toXdotoolKeys('Return')).toEqual(['Return']);
    expect(toXdotoolKeys('ctrl+shift+z')).toEqual(['ctrl+shift+z']);
    expect(toXdotoolKeys('Ctrl+S')).toEqual(['ctrl+s']);
    expect(toXdotoolKeys('enter esc pagedown f5')).toEqual(['Return', 'Escape', 'Next', 'F5']);
    expect(toXdotoolKeys('ctrl++')).toEqual(['ctrl+plus']);
    expect(toXdotoolKeys('ctrl+-')).toEqual(['ctrl+minus']);
    expect(toXdotoolKeys('/')).toEqual(['slash']);
    expect(toXdotoolKeys('é')).toEqual(['U00E9']);
    expect(toXdotoolKeys('KP_Enter')).toEqual(['KP_Enter']);
    expect(() => toXdotoolKeys('ctrl+')).toThrow(/empty key/);
    expect(() => toXdotoolKeys('   ')).toThrow(/no key/);
  });

  it('plans actions and refuses what is off the screen or past a limit', () => {
    expect(planGuiAction({ type: 'click', x: 10.4, y: 20, button: 'right' }, limits)).toEqual({
      kind: 'exec',
      command: 'xdotool mousemove 10 20 mousedown 3 mouseup 3',
      timeoutMs: 10_000,
    });
    expect(planGuiAction({ type: 'click', x: 1920, y: 5 }, limits)).toMatchObject({
      code: 'OUT_OF_SCREEN',
      message: expect.stringContaining('outside the 1920×1080 screen'),
    });
    expect(planGuiAction({ type: 'drag', from: [0, 0], to: [10, -1] }, limits)).toMatchObject({
      code: 'OUT_OF_SCREEN',
    });
    expect(planGuiAction({ type: 'move', x: Number.NaN, y: 0 }, limits)).toMatchObject({
      code: 'OUT_OF_SCREEN',
    });
    expect(planGuiAction({ type: 'scroll', x: 5, y: 5, dx: 0, dy: 300 }, limits)).toMatchObject({
      code: 'BAD_ARGUMENT',
    });
    expect(planGuiAction({ type: 'wait', seconds: 61 }, limits)).toMatchObject({ code: 'BAD_ARGUMENT' });
    expect(planGuiAction({ type: 'key', keys: 'ctrl+' }, limits)).toMatchObject({ code: 'BAD_KEY' });
    expect(planGuiAction({ type: 'wait', seconds: 5, until: 'settled' }, limits)).toEqual({
      kind: 'until',
      condition: 'settled',
      ms: 5_000,
    });
    expect(planGuiAction({ type: 'wait', seconds: 5, until: { window: '(' } }, limits)).toMatchObject({
      code: 'BAD_ARGUMENT',
      message: expect.stringContaining('not a regular expression'),
    });
    expect(planGuiAction({ type: 'type', text: "it's" }, limits)).toMatchObject({
      command: `xdotool type --delay 12 -- 'it'\\''s'`,
    });
  });
});

describe('GUI driver on engiloop/desktop', () => {
  let sb: Sandbox;

  beforeAll(async () => {
    sb = await provider.create(
      sandboxOptions(labels, { image: DESKTOP_IMAGE, cpus: 2, memoryMb: 3072, pids: 1024 }),
    );
  });

  afterAll(async () => {
    await sb?.close();
    const left = await labelledContainers(docker, labels);
    await removeLabelled(docker, labels);
    expect(left).toEqual([]);
  });

  it('starts the desktop once, at 1920×1080, and again in a few ms', async () => {
    expect(await startDesktop(sb)).toMatchObject({ width: 1920, height: 1080 });
    const again = await startDesktop(sb);
    expect(again).toMatchObject({ width: 1920, height: 1080 });
    expect(again.durationMs).toBeLessThan(1_000);
    expect(await windows(sb)).toEqual({ list: [], focused: null });
  });

  it('opens LibreCAD on its main window, maximized, with no first-run dialog', async () => {
    // The main window is titled "LibreCAD" for a moment before its document is named.
    const w = await launchApp(sb, 'librecad', { title: /^LibreCAD - /, timeoutMs: 60_000 });
    expect(w?.title).toMatch(/^LibreCAD - \[unnamed document 1\]$/);
    await new Promise((r) => setTimeout(r, 1_500)); // a Welcome dialog would come after the main window
    const ws = await windows(sb);
    expect(ws.list.map((x) => x.title)).toEqual([w?.title]);
    expect(ws.focused?.title).toBe(w?.title);
    expect(ws.list[0]?.width).toBe(1920);
  });

  it('takes a 1920×1080 PNG screenshot that is not blank', async () => {
    const shot = await screenshot(sb);
    expect(shot.png.subarray(1, 4).toString()).toBe('PNG');
    expect([shot.width, shot.height]).toEqual([1920, 1080]);
    expect(PNG.sync.read(shot.png).width).toBe(1920);
    expect(colours(shot.png)).toBeGreaterThan(20);
    expect(shot.encodeMs).toBeGreaterThan(0);
  });

  it('shows the effect of a click (a menu opens) and of typing (LibreCAD command line)', async () => {
    const before = (await screenshot(sb)).png;
    // The maximized LibreCAD has its "File" menu at (36, 28).
    const menu = await guiTurn(sb, [{ type: 'click', x: 36, y: 28 }], { settleMs: 500 });
    expect(menu.results).toEqual([{ ok: true, durationMs: expect.any(Number) }]);
    expect(menu.stoppedAt).toBeUndefined();
    const opened = changedPixels(before, menu.screenshot.png);
    expect(opened).toBeGreaterThan(20_000);

    // Closed again: what is left is the hover highlight of "File" (≈2k pixels against ≈80k).
    const closed = await guiTurn(sb, [{ type: 'key', keys: 'Escape' }], { settleMs: 500 });
    expect(changedPixels(before, closed.screenshot.png)).toBeLessThan(opened / 10);

    // Typing on the drawing goes to LibreCAD's command line (bottom right).
    const typed = await guiTurn(sb, [{ type: 'type', text: 'line' }], { settleMs: 500, withWindows: true });
    expect(typed.results[0]?.ok).toBe(true);
    expect(changedPixels(closed.screenshot.png, typed.screenshot.png)).toBeGreaterThan(1_000);
    expect(typed.windows?.focused?.title).toMatch(/LibreCAD/);
    const clear = await runGuiActions(sb, [{ type: 'key', keys: 'ctrl+a BackSpace esc' }]);
    expect(clear.stoppedAt).toBeUndefined();
  });

  it('runs every kind of action in order and stops at the first failure (an off-screen click)', async () => {
    const out = await runGuiActions(sb, [
      { type: 'move', x: 600, y: 500 },
      { type: 'drag', from: [600, 500], to: [700, 560] },
      { type: 'scroll', x: 600, y: 500, dx: 0, dy: -2 },
      { type: 'double_click', x: 600, y: 500 },
      { type: 'wait', seconds: 0.1 },
      { type: 'click', x: 2500, y: 10 },
      { type: 'type', text: 'never typed' },
    ]);
    expect(out.stoppedAt).toBe(5);
    expect(out.results).toHaveLength(6);
    expect(out.results.slice(0, 5).every((r) => r.ok)).toBe(true);
    expect(out.results[4]?.durationMs).toBeGreaterThanOrEqual(95);
    expect(out.results[5]).toMatchObject({ ok: false, error: { code: 'OUT_OF_SCREEN' } });
    expect(out.results[5]?.error?.message).toMatch(/click at \(2500, 10\) is outside the 1920×1080 screen/);
    const pointer = await sb.exec('xdotool getmouselocation', run);
    expect(pointer.stdout).toMatch(/^x:600 y:500 /);
    await runGuiActions(sb, [{ type: 'key', keys: 'esc' }]);
  });

  it('keeps the desktop and launched apps when the shell is recovered (its session is killed)', async () => {
    const aborted = sb.exec('sleep 30', { ...run, signal: AbortSignal.timeout(300) });
    await expect(aborted).rejects.toThrow();
    const ws = await windows(sb);
    expect(ws.list).toHaveLength(1);
    expect(ws.list[0]?.title).toMatch(/^LibreCAD - \[unnamed document 1\*?\]$/); // * once edited
    expect((await screenshot(sb)).width).toBe(1920);
  });

  it('reports a key xdotool does not know, which xdotool itself exits 0 for', async () => {
    const out = await runGuiActions(sb, [
      { type: 'key', keys: 'Escape' },
      { type: 'key', keys: 'NoSuchKey' },
    ]);
    expect(out.stoppedAt).toBe(1);
    expect(out.results[1]?.error).toMatchObject({
      code: 'BAD_KEY',
      message: expect.stringContaining('NoSuchKey'),
    });
    await sb.exec('pkill -x librecad; true', run);
  });

  it('waits until the screen settles or a window has the focus, and fails when it never does', async () => {
    await startDesktop(sb);
    // A window that comes after a second, then a screen that never stops changing.
    await launchApp(sb, 'sleep 1; exec xmessage -title Ready -geometry +300+300 hello');
    const ready = await runGuiActions(sb, [{ type: 'wait', seconds: 20, until: { window: '^Ready$' } }]);
    expect(ready.stoppedAt).toBeUndefined();
    expect(ready.results[0]?.durationMs).toBeGreaterThan(500);
    expect((await windows(sb)).focused?.title).toBe('Ready');

    const settled = await runGuiActions(sb, [{ type: 'wait', seconds: 20, until: 'settled' }]);
    expect(settled.stoppedAt).toBeUndefined();
    expect(settled.results[0]?.durationMs).toBeLessThan(5_000);

    const never = await runGuiActions(sb, [
      { type: 'wait', seconds: 1.5, until: { window: '^Nothing' } },
      { type: 'key', keys: 'Escape' },
    ]);
    expect(never.stoppedAt).toBe(0);
    expect(never.results[0]?.error).toMatchObject({ code: 'TIMED_OUT' });
    expect(never.results[0]?.error?.message).toMatch(/the focused window is "Ready"/);
    expect(never.results[0]?.durationMs).toBeGreaterThanOrEqual(1_500);

    await launchApp(
      sb,
      // Windows open maximized here: each shows a new background colour.
      'while :; do xmessage -bg "#$(printf %06x $((RANDOM * 512)))" busy & sleep 0.25; kill $p; p=$!; done',
    );
    const busy = await runGuiActions(sb, [{ type: 'wait', seconds: 2, until: 'settled' }]);
    expect(busy.stoppedAt).toBe(0);
    expect(busy.results[0]?.error?.message).toMatch(/still busy after 2 s \([1-9]\d* screen changes/);
    await sb.exec('pkill -f "[w]hile :"; pkill -x xmessage; true', run);

    // An app working with nothing to show yet (a loaded machine) is not settled either.
    await launchApp(sb, 'exec yes > /dev/null');
    const working = await runGuiActions(sb, [{ type: 'wait', seconds: 2, until: 'settled' }]);
    expect(working.stoppedAt).toBe(0);
    expect(working.results[0]?.error?.message).toMatch(
      /still busy after 2 s \(0 screen changes, [1-9]\d* looks with the apps working \(running: yes\)\)/,
    );
    await sb.exec('pkill -x yes; true', run);
    const idle = await runGuiActions(sb, [{ type: 'wait', seconds: 10, until: 'settled' }]);
    expect(idle.stoppedAt).toBeUndefined();
  });

  it('opens FreeCAD on the Part workbench with no Start page or dialog', async () => {
    const w = await launchApp(sb, 'freecad', { title: /^FreeCAD 0\.20/, timeoutMs: 90_000 });
    await new Promise((r) => setTimeout(r, 3_000));
    const ws = await windows(sb);
    expect(ws.list.map((x) => x.title)).toEqual([w?.title]);
    expect(ws.focused?.title).toBe(w?.title);
    // The empty MDI area of the Part workbench is grey; the Start page would be blue-grey there.
    const { data } = PNG.sync.read((await screenshot(sb)).png);
    const at = (1_000 * 1920 + 1_200) * 4;
    const [r, g, b] = [data[at]!, data[at + 1]!, data[at + 2]!];
    expect(Math.max(r, g, b) - Math.min(r, g, b)).toBeLessThan(8);
    await sb.exec('pkill -x freecad; true', run);
  });

  it('opens KiCad on its project manager with no settings-path or library-table dialog', async () => {
    const w = await launchApp(sb, 'kicad', { title: /^KiCad 6/, timeoutMs: 90_000 });
    await new Promise((r) => setTimeout(r, 2_000));
    const ws = await windows(sb);
    expect(ws.list.map((x) => x.title)).toEqual([w?.title]);
    // The schematic editor is where the global symbol library table dialog would come.
    await launchApp(sb, 'eeschema', { title: /Schematic Editor/, timeoutMs: 60_000 });
    await new Promise((r) => setTimeout(r, 2_000));
    const titles = (await windows(sb)).list.map((x) => x.title);
    expect(titles).toHaveLength(2);
    expect(titles.some((t) => /Library Table|Configure/i.test(t))).toBe(false);
    await sb.exec('pkill -x eeschema; pkill -x kicad; true', run);
    await expect(waitForWindow(sb, /never/, { timeoutMs: 300 })).rejects.toSatisfy(isGuiUnavailable);
  });
});

describe('GUI driver on an image without a desktop', () => {
  it('fails with GUI_UNAVAILABLE, naming the desktop image', async () => {
    await using cli = await provider.create(sandboxOptions(labels, { image: CLI_IMAGE }));
    const err = await startDesktop(cli).catch((e: unknown) => e);
    expect(isGuiUnavailable(err)).toBe(true);
    expect((err as Error).message).toMatch(/engiloop\/desktop/);
  });
});
