/**
 * The report pages in a real headless Chromium, opened from `file://` on the sample site: the click
 * path overview → grid cell → episode → round → screenshot → failure filter → search result, the
 * keyboard, lazy full outputs, hostile text, the virtualized 1,000-round timeline, and refused data.
 * Screenshots of each page go to test-artifacts/report/.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INLINE_TEXT } from '../../actors/report/format.js';
import { SAMPLE, type SampleData } from './sample-data.js';
import { buildWeb, sampleSite } from './sample-site.js';

const ARTIFACTS = join(import.meta.dirname, '../../test-artifacts/report');

let browser: Browser;
let site: { dir: string; url: string; data: SampleData };
const dirs: string[] = [];

beforeAll(async () => {
  buildWeb();
  site = await sampleSite();
  dirs.push(site.dir);
  await mkdir(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** A page that records console errors and warnings and uncaught errors. */
async function open(hash = ''): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(site.url + hash);
  return { page, problems };
}

const tid = (id: string) => `[data-testid="${id}"]`;
const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
const selectedRound = (page: Page) => page.locator(tid('round-detail')).getAttribute('data-round');

async function allImagesHaveAlt(page: Page): Promise<void> {
  const missing = await page.$$eval('img', (imgs) => imgs.filter((i) => !i.getAttribute('alt')).length);
  expect(missing).toBe(0);
}

/** Centre of an overlay mark's first circle against where it should be on the shown image. */
async function markOffset(page: Page, img: string, type: string, x: number, y: number): Promise<number> {
  await page.waitForFunction(
    (sel) => (document.querySelector(sel) as HTMLImageElement | null)?.naturalWidth,
    img,
  );
  return page.evaluate(
    ({ img, type, x, y }) => {
      const im = document.querySelector(img) as HTMLImageElement;
      const frame = im.parentElement!;
      const c = frame.querySelector(`[data-type="${type}"] circle`)!.getBoundingClientRect();
      const r = im.getBoundingClientRect();
      const ex = r.left + (x * r.width) / im.naturalWidth;
      const ey = r.top + (y * r.height) / im.naturalHeight;
      return Math.hypot(c.left + c.width / 2 - ex, c.top + c.height / 2 - ey);
    },
    { img, type, x, y },
  );
}

describe('report pages from file://', () => {
  it('clicks through overview → grid → episode → round → screenshot → filter → search', async () => {
    const { page, problems } = await open();
    const run = site.data.report.runs[0]!;
    await expect
      .poll(() => page.locator(tid('overview-score')).textContent())
      .toBe(run.overall.engiScore!.toFixed(1));
    expect(await page.locator(tid('overview-counts')).textContent()).toBe(
      `${run.episodes} (${run.scored} scored, 5 tasks)`,
    );
    expect(await page.locator(tid('run-section')).textContent()).toContain('1 infrastructure error(s)');
    expect(await page.locator(tid('episode-row')).count()).toBe(site.data.report.episodes.length);
    await allImagesHaveAlt(page);
    await shot(page, 'overview');

    // Grid cell → the GUI episode.
    await page
      .locator(`${tid('grid-cell')}[data-task="gui-kicad-board"][data-agent="openai:gpt-4o"] a`)
      .click();
    await expect
      .poll(() => page.locator(tid('episode-header')).textContent())
      .toContain('gui-kicad-board by openai:gpt-4o');
    expect(page.url()).toContain(`#/episode/${SAMPLE.gui}`);
    expect(await page.locator(tid('fork-child')).first().textContent()).toContain(SAMPLE.fork);

    // A round: the screenshot and where the drag and the double click landed.
    await page.locator(`${tid('timeline-row')}[data-round="2"]`).click();
    await expect.poll(() => selectedRound(page)).toBe('2');
    expect(page.url()).toMatch(/\/round\/2$/);
    const img = page.locator(tid('screenshot'));
    expect(await img.getAttribute('alt')).toBe('Screenshot of round 2');
    expect(await img.getAttribute('loading')).toBe('lazy');
    expect(await page.locator(`${tid('round-detail')} ${tid('overlay-mark')}`).count()).toBe(2);
    expect(await markOffset(page, tid('screenshot'), 'double_click', 500, 60)).toBeLessThan(2);
    expect(await markOffset(page, tid('screenshot'), 'drag', ...SAMPLE.drag.from)).toBeLessThan(2);
    await shot(page, 'episode-gui');

    // The screenshot large, in a dialog, marks at the same image points.
    await img.click();
    await page.locator(`${tid('screenshot-dialog')}[open]`).waitFor();
    expect(await markOffset(page, tid('screenshot-large'), 'double_click', 500, 60)).toBeLessThan(3);
    await allImagesHaveAlt(page);
    await shot(page, 'screenshot-dialog');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator(tid('screenshot-dialog')).count()).toBe(0);

    // Back to the overview; the failure-mode filter shrinks the list to the episodes having it.
    await page.locator(tid('nav-overview')).click();
    await page.locator(`${tid('mode-bar')}[data-mode="ambiguous_task"]`).click();
    const having = site.data.report.episodes
      .filter((e) => e.modes.includes('ambiguous_task'))
      .map((e) => e.id);
    await expect.poll(() => page.locator(tid('episode-row')).count()).toBe(having.length);
    expect(page.url()).toMatch(/#\/\?mode=ambiguous_task$/);
    expect(
      await page.locator(tid('episode-row')).evaluateAll((rs) => rs.map((r) => r.getAttribute('data-id'))),
    ).toEqual(having);
    expect(await page.locator(tid('grid-link')).count()).toBe(having.length);
    await shot(page, 'overview-filtered');
    await page.locator(`${tid('mode-bar')}[data-mode="ambiguous_task"]`).click();
    await expect.poll(() => page.locator(tid('episode-row')).count()).toBe(site.data.report.episodes.length);

    // Search for a command; the result opens the episode at its round.
    await page.locator(tid('nav-search')).click();
    await page.locator(tid('search-input')).fill(SAMPLE.command.toUpperCase());
    await expect.poll(() => page.locator(tid('search-count')).textContent()).toMatch(/^\d+ match/);
    const result = page.locator(`${tid('search-result')}[data-round="4"]`).first();
    expect(await result.locator('mark').textContent()).toBe(SAMPLE.command);
    await shot(page, 'search');
    await result.click();
    await expect.poll(() => selectedRound(page)).toBe('4');
    expect(await page.locator(tid('episode-header')).textContent()).toContain('workflow-cad-fem');
    expect(
      await page
        .locator(`${tid('round-detail')} ${tid('action-label')}`)
        .first()
        .textContent(),
    ).toBe(SAMPLE.command);
    // Hostile observation text shows as text, never as markup.
    expect(await page.locator(`${tid('round-detail')} ${tid('observation')}`).textContent()).toBe(
      SAMPLE.hostile,
    );
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    await allImagesHaveAlt(page);
    await shot(page, 'episode-workflow');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows hand-offs, stage verdicts, trace, provenance and full outputs of the workflow episode', async () => {
    const { page, problems } = await open(`#/episode/${encodeURIComponent(SAMPLE.workflow)}/round/4`);
    await expect.poll(() => selectedRound(page)).toBe('4');
    const handoff = page.locator(`${tid('timeline-row')}[data-round="2"] ${tid('handoff')} title`);
    const title = await handoff.textContent();
    expect(title).toContain('cad:/work/part.stl → fem:/work/in/part.stl');
    expect(title).toContain('a1b2c3d4e5f6 ·');
    expect(title).toContain('geometry: failed');
    expect(
      await page
        .locator(`${tid('timeline-row')}[data-round="4"] ${tid('timeline-actions')}`)
        .getAttribute('class'),
    ).toContain('bad');
    expect(await page.locator(`${tid('stages')}`).textContent()).toContain('3 holes, expected 4');
    expect(await page.locator(tid('trace-first-wrong')).getAttribute('data-round')).toBe('2');
    expect(await page.locator(tid('trace-source')).textContent()).toContain('recorded');
    expect(await page.locator(`${tid('provenance')} ${tid('provenance-node')}`).count()).toBe(4);
    expect(await page.locator(`${tid('provenance-node')}[data-state="fail"]`).count()).toBe(2);
    expect(await page.locator(tid('attribution')).textContent()).toContain('stage geometry');
    // The cut solver log: its head inline, the whole text loaded lazily.
    const stdout = page.locator(`${tid('round-detail')} ${tid('stdout')}`);
    expect((await stdout.textContent())!.length).toBe(INLINE_TEXT);
    await page.locator(tid('show-full')).click();
    await expect.poll(async () => (await stdout.textContent())!.length).toBeGreaterThan(INLINE_TEXT);
    expect(await stdout.textContent()).toContain('ccx step 899:');
    // Keyboard: j/k, n (next cited round), g + Enter, and a finding's round link.
    await page.keyboard.press('j');
    await expect.poll(() => selectedRound(page)).toBe('5');
    await page.keyboard.press('k');
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => selectedRound(page)).toBe('3');
    await page.keyboard.press('n');
    await expect.poll(() => selectedRound(page)).toBe('4');
    await page.keyboard.press('g');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('jump-input');
    await page.keyboard.type('1');
    await page.keyboard.press('Enter');
    await expect.poll(() => selectedRound(page)).toBe('1');
    expect(page.url()).toMatch(/\/round\/1$/);
    await page.locator(`${tid('finding-round')}[data-round="2"]`).click();
    await expect.poll(() => selectedRound(page)).toBe('2');
    await shot(page, 'episode-workflow-provenance');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('keeps the 1,000-round timeline virtual and reaches round 1000 by keyboard', async () => {
    const { page, problems } = await open(`#/episode/${SAMPLE.long}`);
    await page.locator(tid('timeline-row')).first().waitFor();
    const rows = () => page.locator(tid('timeline-row')).count();
    const rounds = () =>
      page
        .locator(tid('timeline-row'))
        .evaluateAll((rs) => rs.map((r) => Number(r.getAttribute('data-round'))));
    expect(await rows()).toBeLessThan(150);
    await page.locator(tid('timeline')).evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
    await expect.poll(async () => (await rounds()).includes(500)).toBe(true);
    expect(await rows()).toBeLessThan(150);
    await page.locator(tid('timeline')).evaluate((el) => (el.scrollTop = el.scrollHeight));
    await expect.poll(async () => (await rounds()).includes(1000)).toBe(true);
    expect(await rows()).toBeLessThan(150);
    expect(Math.min(...(await rounds()))).toBeGreaterThan(900);
    await page.locator(tid('timeline')).evaluate((el) => (el.scrollTop = 0));
    await page.keyboard.press('g');
    await page.keyboard.type('1000');
    await page.keyboard.press('Enter');
    await expect.poll(() => selectedRound(page)).toBe('1000');
    expect(await page.locator(`${tid('timeline-row')}[data-round="1000"]`).getAttribute('class')).toContain(
      'selected',
    );
    await page.keyboard.press('k');
    await expect.poll(() => selectedRound(page)).toBe('999');
    expect(await page.locator(`${tid('timeline-row')}[data-round="999"]`).isVisible()).toBe(true);
    expect(await rows()).toBeLessThan(150);
    await shot(page, 'episode-1000');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('caps search results at 200 with the total, and shows two runs with their comparison', async () => {
    const { page, problems } = await open('#/search?q=ROUND 9');
    await expect.poll(() => page.locator(tid('search-count')).textContent()).toMatch(/the first 200 shown$/);
    const total = site.data.search.flat().filter((e) => e.t.toLowerCase().includes('round 9')).length;
    expect(total).toBeGreaterThan(200);
    expect(await page.locator(tid('search-count')).textContent()).toBe(
      `${total.toLocaleString('en-US')} matches, the first 200 shown`,
    );
    expect(await page.locator(tid('search-result')).count()).toBe(200);
    const two = await sampleSite();
    dirs.push(two.dir);
    const r = two.data.report;
    const b = { ...r.runs[0]!, id: 'run-b', overall: { ...r.runs[0]!.overall, engiScore: 70.5 } };
    const comparison = {
      a: r.runs[0]!.id,
      b: 'run-b',
      tasks: [{ taskId: 'gmsh-bracket', a: 0.25, b: 1, delta: 0.75, passedA: false, passedB: true }],
      onlyA: [],
      onlyB: [],
      fixed: ['gmsh-bracket'],
      broken: [],
      score: { delta: 8.7, low: -2.1, high: 19.4, p: 0.12 },
      mcnemar: { b: 1, c: 0, p: 1 },
      modes: [{ mode: 'ambiguous_task', a: 3, b: 1, delta: -2 }],
    };
    await writeFile(
      join(two.dir, 'data/report.js'),
      `engiloopData("report", ${JSON.stringify({ ...r, runs: [...r.runs, b], comparison })});`,
    );
    await page.goto(`file://${join(two.dir, 'index.html')}#/`);
    await expect.poll(() => page.locator(tid('run-headline')).count()).toBe(2);
    expect(await page.locator(tid('run-score')).textContent()).toBe('70.5');
    const cmp = await page.locator(tid('comparison')).textContent();
    expect(cmp).toContain('8.7 [-2.1, 19.4], p = 0.120');
    expect(cmp).toContain('b = 1, c = 0, p = 1');
    expect(cmp).toContain('gmsh-bracket');
    await shot(page, 'overview-two-runs');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('refuses data of another format and names a file that does not load', async () => {
    const { page } = await open(`#/episode/ep-not-there`);
    await expect
      .poll(() => page.locator(tid('error')).textContent())
      .toContain('could not load data/episodes/ep-not-there.js');
    await writeFile(
      join(site.dir, 'data/report.js'),
      `engiloopData("report", ${JSON.stringify({ ...site.data.report, format: 99 })});`,
    );
    await page.goto(site.url);
    await page.reload();
    await expect
      .poll(() => page.locator(tid('error')).textContent())
      .toContain('data/report.js is in report format 99');
    await page.close();
  });
});
