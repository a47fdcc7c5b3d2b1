/**
 * `engiloop report` and `engiloop view` on real runs (real nats-server, real Docker, real apps: a
 * CLI task, a two-app workflow with hand-offs, a LibreCAD GUI task, and a defect of the verilog
 * counter for failure modes), looked at in a real headless Chromium: the static report from
 * `file://`, clicked through overview → grid cell → episode → round → screenshot → failure filter →
 * search result, and the live view from localhost while a new run goes. What the pages show is
 * checked against the data the report wrote; screenshots go to test-artifacts/report/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFile, cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EpisodeData, ReportData } from '../../actors/report/format.js';
import { openBrowser, type TestBrowser } from '../helpers/chromium.js';
import { cli } from '../helpers/cli.js';
import { startTestNats, type TestNats } from '../helpers/nats.js';

const ROOT = join(import.meta.dirname, '../..');
const TASKS = join(ROOT, 'tasks');
let nats: TestNats;
let home: string;
let suite: string;
let out: string;
let env: Record<string, string>;
let runA: string;
let runB: string;
let b: TestBrowser;

async function run(path: string, agent: string): Promise<string> {
  const r = await cli(['run', path, '--agent', agent, '--concurrency', '1', '--json'], env, {
    timeoutMs: 600_000,
  });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { runId: string }).runId;
}

/** Reads a data script of a report the way the pages do. */
async function dataIn<T>(dir: string, file: string): Promise<T> {
  let got: unknown;
  runInNewContext(await readFile(join(dir, file), 'utf8'), {
    engiloopData: (_k: string, p: unknown) => (got = p),
  });
  return got as T;
}
const data = <T>(file: string): Promise<T> => dataIn<T>(out, file);

beforeAll(async () => {
  nats = await startTestNats();
  home = await mkdtemp(join(tmpdir(), 'engiloop-home-'));
  suite = await mkdtemp(join(tmpdir(), 'engiloop-suite-'));
  out = await mkdtemp(join(tmpdir(), 'engiloop-report-'));
  for (const [from, name] of [
    ['starter/verilog-counter', 'verilog-counter'],
    ['workflows/yosys-iverilog-gatesim', 'yosys-iverilog-gatesim'],
    ['gui/librecad-plate', 'librecad-plate'],
  ])
    await cp(join(TASKS, from!), join(suite, name!), { recursive: true });
  // A snapshot after every round, so `report --trace` has points to re-verify.
  await appendFile(join(suite, 'verilog-counter', 'task.yaml'), '\nlimits:\n  snapshot_every: 1\n');
  env = { NATS_URL: nats.url, ENGILOOP_HOME: home };
  runA = await run(suite, 'scripted');
  runB = await run(join(suite, 'verilog-counter'), 'scripted:off-by-one');
  b = await openBrowser();
}, 900_000);
afterAll(async () => {
  await b?.close();
  await nats?.close();
  for (const d of [home, suite, out]) if (d) await rm(d, { recursive: true, force: true });
});

describe('engiloop report', () => {
  it('writes a static site of two runs, and refuses a folder that is not a report', async () => {
    const r = await cli(['report', runA, runB, '--out', out], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(`file://${join(out, 'index.html')}`);
    expect(r.stderr).toMatch(/report: 4 episodes, \d+ files/);
    const files = await readdir(out);
    expect(files).toEqual(
      expect.arrayContaining(['index.html', 'assets', 'data', 'files', 'engiloop-report.json']),
    );
    expect((await readdir(join(out, 'files'))).filter((f) => f.endsWith('.png')).length).toBeGreaterThan(0);
    const rep = await data<ReportData>('data/report.js');
    expect(rep.runs.map((x) => x.id)).toEqual([runA, runB]);
    expect(rep.comparison).toMatchObject({ a: runA, b: runB, broken: ['verilog-counter'] });
    // No page loads anything from outside the folder.
    const html = await readFile(join(out, 'index.html'), 'utf8');
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);

    const other = await mkdtemp(join(tmpdir(), 'engiloop-notreport-'));
    await writeFile(join(other, 'thesis.tex'), 'keep me');
    const refused = await cli(['report', runA, '--out', other], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/is not empty and is not an engiloop report/);
    expect(await readFile(join(other, 'thesis.tex'), 'utf8')).toBe('keep me');
    await rm(other, { recursive: true, force: true });
    const unknown = await cli(['report', 'no-such-run', '--out', out], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no run "no-such-run"/);
  });

  it('clicks through overview → grid cell → episode → round → screenshot → failure filter → search result', async () => {
    const { page } = b;
    const rep = await data<ReportData>('data/report.js');
    const url = `file://${join(out, 'index.html')}`;
    await page.goto(url);
    await expect.poll(() => page.getByTestId('run-headline').count()).toBe(2);
    await expect.poll(() => page.getByTestId('comparison').textContent()).toContain('verilog-counter');
    await b.shot('real-overview');

    // Grid cell → the GUI episode.
    const gui = rep.episodes.find((e) => e.runId === runA && e.taskId === 'librecad-plate')!;
    await page.locator(`[data-testid=grid-link][data-id="${gui.id}"]`).click();
    await expect.poll(() => page.url()).toContain(`#/episode/${gui.id}`);
    const ep = await data<EpisodeData>(`data/episodes/${gui.id}.js`);
    await expect.poll(() => page.getByTestId('episode-header').textContent()).toContain(ep.title);

    // A round with a click: its screenshot, with the click drawn where it landed.
    const clicked = ep.rounds.find(
      (r) => r.observation?.screenshot?.file && r.actions.some((a) => a.action.type === 'click'),
    )!;
    expect(clicked).toBeDefined();
    await page.locator(`[data-testid=timeline-row][data-round="${clicked.round}"]`).click();
    await expect.poll(() => page.url()).toMatch(new RegExp(`/round/${clicked.round}$`));
    const detail = page.getByTestId('round-detail');
    await expect.poll(() => detail.textContent()).toContain(clicked.actions[0]!.label);
    const img = detail.locator('img').first();
    expect(await img.getAttribute('alt')).toMatch(new RegExp(`round ${clicked.round}`, 'i'));
    const click = clicked.actions.find((a) => a.action.type === 'click')!.action as { x: number; y: number };
    const mark = detail.locator(`[data-testid=overlay-mark][data-x="${click.x}"][data-y="${click.y}"]`);
    expect(await mark.count()).toBeGreaterThan(0);
    await img.click();
    await expect.poll(() => page.getByTestId('screenshot-dialog').isVisible()).toBe(true);
    await b.shot('real-screenshot');
    await page.keyboard.press('Escape');

    // Keyboard: next, previous, jump.
    await page.keyboard.press('j');
    await expect.poll(() => page.url()).toMatch(new RegExp(`/round/${clicked.round + 1}$`));
    await page.keyboard.press('k');
    await expect.poll(() => page.url()).toMatch(new RegExp(`/round/${clicked.round}$`));
    await page.keyboard.press('g');
    await page.getByTestId('jump-input').fill('1');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.url()).toMatch(/\/round\/1$/);
    await b.shot('real-episode');

    // Failure filter: the list keeps the episodes showing that mode.
    await page.goto(`${url}#/`);
    const mode = rep.runs[1]!.modes[0]!.mode;
    const having = rep.episodes.filter((e) => e.modes.includes(mode)).map((e) => e.id);
    expect(having.length).toBeGreaterThan(0);
    await page.locator(`[data-testid=mode-bar][data-mode="${mode}"]`).first().click();
    await expect.poll(() => page.url()).toContain(`mode=${encodeURIComponent(mode)}`);
    await expect
      .poll(async () =>
        (
          await page.getByTestId('episode-row').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-id')))
        ).sort(),
      )
      .toEqual(having.sort());
    await b.shot('real-failure-filter');

    // Search: a command of the failing episode opens at its round.
    const failing = rep.episodes.find((e) => e.runId === runB)!;
    const fe = await data<EpisodeData>(`data/episodes/${failing.id}.js`);
    const target = fe.rounds.find((r) => r.actions.some((a) => a.action.type === 'shell'))!;
    const q = target.actions.find((a) => a.action.type === 'shell')!.label.slice(0, 24);
    await page.goto(`${url}#/search`);
    await page.getByTestId('search-input').fill(q);
    await page.keyboard.press('Enter');
    const hit = page
      .locator(`[data-testid=search-result][data-id="${failing.id}"][data-round="${target.round}"]`)
      .first();
    await expect.poll(() => hit.count()).toBeGreaterThan(0);
    await b.shot('real-search');
    await hit.click();
    await expect.poll(() => page.url()).toContain(`#/episode/${failing.id}/round/${target.round}`);
    await expect.poll(() => page.getByTestId('round-detail').textContent()).toContain(q);

    // Every image has alt text; nothing went to the console.
    const alts = await page.locator('img').evaluateAll((is) => is.map((i) => i.getAttribute('alt')));
    expect(alts.every((a) => a && a.length > 0)).toBe(true);
    expect(b.problems).toEqual([]);
  });
});

describe('engiloop report --trace', () => {
  it("re-verifies a failed episode at each snapshot: the chart shows the criterion's verdicts over the rounds", async () => {
    const traced = await mkdtemp(join(tmpdir(), 'engiloop-report-trace-'));
    try {
      const r = await cli(['report', runB, '--trace', '--tasks', suite, '--out', traced], env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/re-verifying \S+ at its snapshots/);
      const rep = await dataIn<ReportData>(traced, 'data/report.js');
      const id = rep.episodes[0]!.id;
      const ep = await dataIn<EpisodeData>(traced, `data/episodes/${id}.js`);
      expect(ep.trace.source).toBe('reverified');
      const tb = ep.trace.series.find((x) => x.criterion === 'testbench')!;
      const snaps = tb.points.filter((p) => p.source === 'snapshot');
      expect(snaps.length).toBeGreaterThan(0);
      expect(snaps.map((p) => p.round)).toEqual(
        ep.rounds.filter((x) => x.round <= snaps.at(-1)!.round && x.actions.length).map((x) => x.round),
      );
      expect(tb.points.at(-1)).toMatchObject({ source: 'final', passed: false });
      const { page } = b;
      await page.goto(`file://${join(traced, 'index.html')}#/episode/${id}`);
      await expect.poll(() => page.getByTestId('trace-source').textContent()).toMatch(/re-verified/i);
      expect(await page.getByTestId('trace-chart').count()).toBe(1);
      await b.shot('real-trace');
    } finally {
      await rm(traced, { recursive: true, force: true });
    }
  });
});

describe('engiloop view', () => {
  let view: ChildProcess | null = null;
  afterAll(() => void view?.kill('SIGINT'));

  it('serves the pages on localhost and shows a new run as it goes: the episode appears, then its score', async () => {
    view = spawn(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'actors/cli/main.ts'), 'view', '--port', '0'],
      {
        cwd: ROOT,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    view.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    await expect.poll(() => stdout, { timeout: 60_000 }).toMatch(/http:\/\/127\.0\.0\.1:\d+\//);
    const url = stdout.trim().split('\n')[0]!;
    const { page } = b;
    b.problems.length = 0;
    await page.goto(url);
    // The newest run so far.
    await expect
      .poll(() => page.getByTestId('run-headline').textContent(), { timeout: 30_000 })
      .toContain(runB);
    await page.evaluate(() => ((globalThis as unknown as { kept: boolean }).kept = true));

    let ended = false;
    const runC = run(join(suite, 'verilog-counter'), 'scripted').then((id) => ((ended = true), id));
    // The new run appears while it runs, without a reload.
    await expect.poll(() => page.getByTestId('run-headline').count(), { timeout: 120_000 }).toBe(2);
    const appearedWhileRunning = !ended;
    const id = await runC;
    expect(appearedWhileRunning).toBe(true);
    const cell = page.locator(`[data-testid=grid-link][data-id^="${id}"]`);
    await expect.poll(() => cell.count(), { timeout: 60_000 }).toBeGreaterThan(0);
    await cell.first().click();
    // Its score fills in.
    await expect
      .poll(() => page.getByTestId('episode-status').textContent(), { timeout: 60_000 })
      .toMatch(/done/);
    expect(await page.locator('[data-testid=timeline-row]').count()).toBeGreaterThan(0);
    expect(await page.evaluate(() => (globalThis as unknown as { kept?: boolean }).kept)).toBe(true);

    // The same click path on the live pages: a round, the failure filter, a search result.
    await page.locator('[data-testid=timeline-row]').first().click();
    await expect.poll(() => page.getByTestId('round-detail').count()).toBe(1);
    const label = (await page.getByTestId('action-label').first().textContent())!.slice(0, 24);
    await page.goto(`${url}#/`);
    const bar = page.locator('[data-testid=mode-bar]').first();
    await expect.poll(() => bar.count(), { timeout: 30_000 }).toBe(1);
    await bar.click();
    await expect.poll(() => page.url()).toContain('mode=');
    const rows = await page
      .getByTestId('episode-row')
      .evaluateAll((rs) => rs.map((r) => r.getAttribute('data-id')));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r?.startsWith(runB))).toBe(true); // only the failing run shows modes
    await page.goto(`${url}#/search`);
    await page.getByTestId('search-input').fill(label);
    await page.keyboard.press('Enter');
    const hit = page.locator(`[data-testid=search-result][data-id^="${id}"]`).first();
    await expect.poll(() => hit.count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await hit.click();
    await expect.poll(() => page.url()).toMatch(new RegExp(`#/episode/${id}[^/]*/round/\\d+$`));
    await b.shot('real-live');
    expect(b.problems).toEqual([]);
  });
});
