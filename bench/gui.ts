/**
 * GUI turn overhead on `engiloop/desktop:latest`: one turn is a batch of 3 actions (move, click,
 * key) plus one fresh screenshot, with no settle pause, so only the harness's cost is measured.
 * Also the parts (actions alone, screenshot alone, scrot's capture + PNG encoding inside the
 * container), `windows()`, and the PNG size of each app's first screen.
 *
 * Run directly: `node --import tsx bench/gui.ts [turns]` (default 50) prints two small tables.
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import {
  DockerSandboxProvider,
  guiTurn,
  launchApp,
  runGuiActions,
  screenshot,
  startDesktop,
  windows,
  type GuiAction,
  type Sandbox,
} from '../actors/sandbox/index.js';

/** One measured quantity: p50 and p95 over `n` samples. */
export interface GuiBenchRow {
  name: string;
  unit: 'ms' | 'KB';
  p50: number;
  p95: number;
  n: number;
}

/** One app's first screen. */
export interface AppScreenRow {
  app: string;
  pngKb: number;
  encodeMs: number;
  /** Launch until the main window is mapped (painting goes on for a second or two). */
  startSeconds: number;
}

const WARMUP = 3;
/** Harmless in LibreCAD: a click on the empty drawing, then Escape. */
const BATCH: GuiAction[] = [
  { type: 'move', x: 900, y: 500 },
  { type: 'click', x: 910, y: 505 },
  { type: 'key', keys: 'Escape' },
];

function pct(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round((sorted[i] ?? Number.NaN) * 10) / 10;
}

function row(name: string, unit: GuiBenchRow['unit'], xs: number[]): GuiBenchRow {
  const s = [...xs].sort((a, b) => a - b);
  return { name, unit, p50: pct(s, 50), p95: pct(s, 95), n: s.length };
}

const kb = (bytes: number): number => Math.round(bytes / 102.4) / 10;

async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const v = await f();
  return [v, performance.now() - t0];
}

async function appScreen(sb: Sandbox, app: string, command: string, title: RegExp): Promise<AppScreenRow> {
  const [, ms] = await timed(() => launchApp(sb, command, { title, timeoutMs: 120_000 }));
  await new Promise((r) => setTimeout(r, 2_000)); // let it finish painting
  const shot = await screenshot(sb);
  await sb.exec(`pkill -x ${command}; sleep 1; true`, { timeoutMs: 10_000, outputCapBytes: 4096 });
  return {
    app,
    pngKb: kb(shot.png.length),
    encodeMs: shot.encodeMs,
    startSeconds: Math.round(ms / 100) / 10,
  };
}

/** Measures `turns` GUI turns (and their parts) in one LibreCAD sandbox, then each app's screen. */
export async function benchGui(opts: {
  turns: number;
}): Promise<{ rows: GuiBenchRow[]; apps: AppScreenRow[] }> {
  const provider = new DockerSandboxProvider();
  await provider.ping();
  await using sb = await provider.create({
    name: 'bench',
    image: 'engiloop/desktop:latest',
    workdir: '/workspace',
    cpus: 2,
    memoryMb: 3072,
    pids: 1024,
    labels: { 'io.engiloop.bench': 'gui' },
  });
  const [, startMs] = await timed(() => startDesktop(sb));
  await screenshot(sb); // the first one also loads scrot and its libraries from disk
  const empty = await screenshot(sb);
  const apps: AppScreenRow[] = [
    {
      app: 'desktop (empty)',
      pngKb: kb(empty.png.length),
      encodeMs: empty.encodeMs,
      startSeconds: startMs / 1000,
    },
  ];
  await launchApp(sb, 'librecad', { title: /LibreCAD/, timeoutMs: 120_000 });
  await new Promise((r) => setTimeout(r, 2_000));

  const turn: number[] = [];
  const actions: number[] = [];
  const shots: number[] = [];
  const encode: number[] = [];
  const sizes: number[] = [];
  const lists: number[] = [];
  for (let i = 0; i < WARMUP + opts.turns; i++) {
    const [t, ms] = await timed(() => guiTurn(sb, BATCH, { settleMs: 0 }));
    if (t.stoppedAt !== undefined)
      throw new Error(`action ${t.stoppedAt} failed: ${t.results.at(-1)?.error?.message}`);
    const [, aMs] = await timed(() => runGuiActions(sb, BATCH));
    const [s, sMs] = await timed(() => screenshot(sb));
    const [, wMs] = await timed(() => windows(sb));
    if (i < WARMUP) continue;
    lists.push(wMs);
    turn.push(ms);
    actions.push(aMs);
    shots.push(sMs);
    encode.push(s.encodeMs);
    sizes.push(s.png.length / 1024);
  }
  await sb.exec('pkill -x librecad; sleep 1; true', { timeoutMs: 10_000, outputCapBytes: 4096 });
  apps.push(await appScreen(sb, 'LibreCAD', 'librecad', /LibreCAD/));
  apps.push(await appScreen(sb, 'FreeCAD', 'freecad', /^FreeCAD/));
  apps.push(await appScreen(sb, 'KiCad', 'kicad', /^KiCad/));
  return {
    rows: [
      row('desktop start (Xvfb + openbox)', 'ms', [startMs]),
      row('turn: 3 actions + screenshot', 'ms', turn),
      row('3 actions alone', 'ms', actions),
      row('screenshot alone (host view)', 'ms', shots),
      row('scrot capture + PNG encode', 'ms', encode),
      row('screenshot PNG size (LibreCAD)', 'KB', sizes),
      row('windows() (list + focused)', 'ms', lists),
    ],
    apps,
  };
}

function table(cells: string[][]): string {
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells
    .map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '))
    .join('\n');
}

/** The results as two plain-text tables. */
export function formatGuiBench(r: { rows: GuiBenchRow[]; apps: AppScreenRow[] }): string {
  const a = table([
    ['quantity', 'n', 'p50', 'p95', 'unit'],
    ...r.rows.map((x) => [x.name, String(x.n), x.p50.toFixed(1), x.p95.toFixed(1), x.unit]),
  ]);
  const b = table([
    ['first screen', 'PNG KB', 'encode ms', 'window after s'],
    ...r.apps.map((x) => [x.app, x.pngKb.toFixed(1), String(x.encodeMs), x.startSeconds.toFixed(1)]),
  ]);
  return `${a}\n\n${b}`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const turns = Number(process.argv[2] ?? 50);
  console.log(formatGuiBench(await benchGui({ turns })));
}
