/**
 * The report pages in live mode (`ReportData.live`), in a real headless Chromium on localhost: a
 * small stand-in for `engiloop view` serves the sample site and an event stream at `live`; the test
 * rewrites data files and announces them, and the open page re-renders in place (an episode
 * appears, rounds stream in, the score fills in) keeping the selected round and the scroll.
 */
import { createReadStream } from 'node:fs';
import { rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EpisodeData, ReportData } from '../../actors/report/format.js';
import { SAMPLE, type SampleData } from './sample-data.js';
import { buildWeb, sampleSite } from './sample-site.js';

const TYPES: Record<string, string> = {
  html: 'text/html',
  js: 'text/javascript',
  css: 'text/css',
  png: 'image/png',
};

let browser: Browser;
let server: Server;
let base: string;
let site: { dir: string; url: string; data: SampleData };
const streams = new Set<ServerResponse>();

function announce(key: string): void {
  for (const res of streams) res.write(`data: ${JSON.stringify({ key })}\n\n`);
}
const write = (file: string, key: string, payload: unknown) =>
  writeFile(join(site.dir, file), `engiloopData(${JSON.stringify(key)}, ${JSON.stringify(payload)});\n`);

beforeAll(async () => {
  buildWeb();
  site = await sampleSite();
  site.data.report.live = true;
  await write('data/report.js', 'report', site.data.report);
  server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (path === '/live') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      res.write(': hello\n\n');
      streams.add(res);
      req.on('close', () => streams.delete(res));
      return;
    }
    const file = join(site.dir, normalize(path === '/' ? '/index.html' : path));
    stat(file).then(
      () => {
        res.writeHead(200, {
          'content-type': TYPES[file.split('.').pop() ?? ''] ?? 'application/octet-stream',
        });
        createReadStream(file).pipe(res);
      },
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  for (const res of streams) res.end();
  await new Promise((ok) => server?.close(ok));
  if (site) await rm(site.dir, { recursive: true, force: true });
});

describe('report pages, live', () => {
  it('shows a new episode, streams its rounds in and fills its score, in place', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 700 } });
    const problems: string[] = [];
    page.on('console', (m) => (m.type() === 'error' || m.type() === 'warning') && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(base);
    await page.locator('[data-testid="overview-score"]').waitFor();
    await expect.poll(() => streams.size).toBe(1);
    await page.evaluate(() => window.scrollTo(0, 400));

    // An episode appears (running).
    const gui = site.data.episodes.find((e) => e.id === SAMPLE.gui)!;
    const id = 'ep-live-1';
    const ep: EpisodeData = {
      ...gui,
      id,
      status: 'running',
      running: true,
      score: null,
      passed: false,
      rounds: gui.rounds.slice(0, 1),
      findings: [],
      family: { parent: null, children: [] },
    };
    const report: ReportData = structuredClone(site.data.report);
    const row = {
      ...report.episodes.find((e) => e.id === SAMPLE.gui)!,
      id,
      status: 'running',
      score: null,
      rounds: 1,
      modes: [],
    };
    report.episodes.push(row);
    await write(`data/episodes/${id}.js`, `episode:${id}`, ep);
    await write('data/report.js', 'report', report);
    announce('report');
    await page.locator(`[data-testid="grid-link"][data-id="${id}"]`).waitFor();
    expect(await page.locator(`[data-testid="grid-link"][data-id="${id}"]`).getAttribute('class')).toContain(
      'running',
    );
    expect(await page.evaluate(() => window.scrollY)).toBe(400);

    // Its page; rounds stream in; the selected round stays.
    await page.goto(`${base}#/episode/${id}/round/1`);
    await expect
      .poll(() => page.locator('[data-testid="round-detail"]').getAttribute('data-round'))
      .toBe('1');
    expect(await page.locator('[data-testid="episode-status"]').textContent()).toBe('running');
    await write(`data/episodes/${id}.js`, `episode:${id}`, { ...ep, rounds: gui.rounds });
    announce(`episode:${id}`);
    await expect.poll(() => page.locator('[data-testid="timeline-row"]').count()).toBe(3);
    expect(await page.locator('[data-testid="round-detail"]').getAttribute('data-round')).toBe('1');

    // It ends: the score fills in.
    await write(`data/episodes/${id}.js`, `episode:${id}`, {
      ...ep,
      rounds: gui.rounds,
      status: 'passed',
      running: false,
      passed: true,
      score: 1,
    });
    announce(`episode:${id}`);
    await expect.poll(() => page.locator('[data-testid="episode-status"]').textContent()).toBe('passed');
    expect(await page.locator('[data-testid="round-detail"]').getAttribute('data-round')).toBe('1');
    expect(await page.locator('#live').isVisible()).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });
});
