/**
 * How fast the report pages open and scroll in headless Chromium, on the sample site
 * (test/report/sample-site.ts) with a 1,000-episode overview and a 1,000-round episode.
 *
 * Printed side by side for the overview and the 1,000-round episode page: first contentful paint
 * and "rendered" (the page's `performance.mark('engiloop:rendered')`), medians of 5 cold loads
 * (a fresh browser context each), the JS heap (CDP `Performance.getMetrics` JSHeapUsedSize) and the
 * DOM node count once rendered; then the timeline scrolled end to end in half-screen steps: the
 * time per step (one animation frame after each scroll) and the rows in the DOM. Target: first
 * paint < 2 s.
 *
 * Run: `npx tsx bench/report-pages.ts [loads]` (default 5), or on any report folder:
 * `npx tsx bench/report-pages.ts 5 file:///…/index.html <long-episode-id>` (bench/report.ts
 * `--out` writes one from a 1,000-episode run). (No named arrow functions inside
 * `page.evaluate`: tsx would wrap them in a `__name` helper the page does not have.)
 */
import { rm } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../test/helpers/chromium.js';
import { SAMPLE } from '../test/report/sample-data.js';
import { buildWeb, sampleSite } from '../test/report/sample-site.js';

const LOADS = Number(process.argv[2] ?? 5);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2 : 0;
};
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? 0;

interface Load {
  fcp: number;
  rendered: number;
  heapMiB: number;
  nodes: number;
}

async function load(browser: Browser, url: string): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForFunction(() => performance.getEntriesByName('engiloop:rendered').length > 0, null, {
    timeout: 60_000,
  });
  await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0);
  const t = await page.evaluate(() => ({
    fcp: performance.getEntriesByName('first-contentful-paint')[0]!.startTime,
    rendered: performance.getEntriesByName('engiloop:rendered')[0]!.startTime,
  }));
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const metric = (name: string) => metrics.find((m) => m.name === name)?.value ?? 0;
  const nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
  await context.close();
  return { ...t, heapMiB: metric('JSHeapUsedSize') / 2 ** 20, nodes };
}

async function scroll(browser: Browser, url: string) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForFunction(() => performance.getEntriesByName('engiloop:rendered').length > 0);
  const r = await page.evaluate(async () => {
    const box = document.querySelector('[data-testid="timeline"]') as HTMLElement;
    const step = Math.floor(box.clientHeight / 2);
    const times: number[] = [];
    let maxRows = 0;
    await new Promise((res) => requestAnimationFrame(res));
    let last = performance.now();
    while (box.scrollTop + box.clientHeight < box.scrollHeight - 1) {
      box.scrollTop += step;
      await new Promise((res) => requestAnimationFrame(res));
      const now = performance.now();
      times.push(now - last);
      last = now;
      maxRows = Math.max(maxRows, box.querySelectorAll('[data-testid="timeline-row"]').length);
    }
    return { times, step, maxRows, height: box.scrollHeight };
  });
  await context.close();
  return r;
}

const [given, givenLong] = [process.argv[3], process.argv[4]];
buildWeb(true);
const site = given ? null : await sampleSite({ rows: 1000 });
const browser = await launchChromium();
try {
  const pages = site
    ? [
        { name: `overview (${site.data.report.episodes.length} episodes)`, url: site.url },
        {
          name: `episode (${site.data.episodes.find((e) => e.id === SAMPLE.long)!.rounds.length} rounds)`,
          url: `${site.url}#/episode/${SAMPLE.long}`,
        },
      ]
    : [
        { name: 'overview', url: given! },
        { name: `episode ${givenLong}`, url: `${given}#/episode/${encodeURIComponent(givenLong ?? '')}` },
      ];
  console.log(
    `report pages in headless Chromium, median of ${LOADS} cold loads (target: first paint < 2000 ms)`,
  );
  console.log(
    `${'page'.padEnd(28)}${'first paint ms'.padStart(16)}${'rendered ms'.padStart(14)}${'JS heap MiB'.padStart(14)}${'DOM nodes'.padStart(12)}  target`,
  );
  for (const p of pages) {
    const runs: Load[] = [];
    for (let i = 0; i < LOADS; i++) runs.push(await load(browser, p.url));
    const fcp = median(runs.map((r) => r.fcp));
    console.log(
      `${p.name.padEnd(28)}${fcp.toFixed(0).padStart(16)}${median(runs.map((r) => r.rendered))
        .toFixed(0)
        .padStart(14)}${median(runs.map((r) => r.heapMiB))
        .toFixed(1)
        .padStart(14)}${median(runs.map((r) => r.nodes))
        .toFixed(0)
        .padStart(12)}  ${fcp < 2000 ? 'ok' : 'MISSED'}`,
    );
  }
  const s = await scroll(browser, pages[1]!.url);
  const slow = s.times.filter((t) => t > 1000 / 60 + 1).length;
  console.log(
    `timeline scrolled end to end (${s.height} px, ${s.times.length} steps of ${s.step} px): per step median ${median(s.times).toFixed(1)} ms, p95 ${pct(s.times, 0.95).toFixed(1)} ms, max ${Math.max(...s.times).toFixed(1)} ms; steps over one 60 Hz frame: ${slow}/${s.times.length}; rows in the DOM at most ${s.maxRows}`,
  );
} finally {
  await browser.close();
  if (site) await rm(site.dir, { recursive: true, force: true });
}
