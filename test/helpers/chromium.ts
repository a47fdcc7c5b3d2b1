/**
 * A real headless Chromium (Debian's, driven by playwright-core) for the report pages' tests, with
 * the flags this closed network needs (playwright gives it a fresh profile), and a collector of console errors and warnings.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const CHROMIUM = process.env.ENGILOOP_CHROMIUM ?? '/usr/bin/chromium';

/** Where tests save page screenshots (a CI artifact). */
const ARTIFACTS = join(import.meta.dirname, '../../test-artifacts/report');

/** A browser with one context; `problems` collects console errors/warnings and page errors. */
export interface TestBrowser {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  problems: string[];
  shot(name: string): Promise<void>;
  close(): Promise<void>;
}

/** Launches headless Chromium with the flags this machine needs (as root, closed network). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export async function openBrowser(): Promise<TestBrowser> {
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await mkdir(ARTIFACTS, { recursive: true });
  return {
    browser,
    context,
    page,
    problems,
    shot: async (name) =>
      void (await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: false })),
    close: async () => {
      await browser.close();
    },
  };
}
