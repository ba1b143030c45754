import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { build } from 'vite';
import { runTestbedJob } from '../../src/ui/runTestbedJob.js';
import type { TestbedJobRunner } from '../../src/ui/TestbedJob.js';
import { startUiServer, type UiServer } from '../../src/ui/uiServer.js';

/** Debian's Chromium, driven by playwright-core (no browser download). */
export const CHROMIUM_PATH = process.env.DIFFTRY_CHROMIUM ?? '/usr/bin/chromium';

/** Whether the browser suite can run here; when not, it is skipped and says so once. */
export const CHROMIUM_PRESENT = existsSync(CHROMIUM_PATH);

// Said once per test file, so that a run without the browser says what it left out.
if (!CHROMIUM_PRESENT && process.env.VITEST !== undefined) {
  process.stderr.write(
    `\nbrowser suite SKIPPED: no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set DIFFTRY_CHROMIUM)\n\n`,
  );
}

/** Where the suite saves its screenshots: test-results/ui/ (ignored by git). */
export const SCREENSHOT_DIR = join('test-results', 'ui');

/** A page opened by {@link UiSession.open}, and every console error or page error it logged. */
export interface OpenedPage {
  readonly page: Page;
  readonly errors: string[];
}

/**
 * The built UI served by the real `difftry ui` server, and a browser to look at it: the browser
 * tests, `npm run bench:ui` and `npm run ui:screenshots` all start from one.
 */
export interface UiSession {
  /** The page as built for this session (a temporary folder, removed by `close`). */
  readonly assetsDir: string;
  readonly server: UiServer;
  readonly browser: Browser;
  /** Opens `server.url + query` (e.g. `?view=network&example=hotel`) in a new page, 1280×900. */
  open(query?: string): Promise<OpenedPage>;
  /** Saves a full-page PNG as test-results/ui/NAME.png; returns its path. */
  screenshot(page: Page, name: string): Promise<string>;
  close(): Promise<void>;
}

/** Builds the page with the repository's vite config into a temporary folder. */
export async function buildUi(outDir: string): Promise<void> {
  await build({
    configFile: join(process.cwd(), 'web', 'vite.config.ts'),
    logLevel: 'error',
    build: { outDir, emptyOutDir: true },
  });
}

/**
 * Builds the UI (vite, as `npm run build` does), starts it with `startUiServer` on 127.0.0.1
 * port 0, and launches headless Chromium (`--no-sandbox --disable-gpu`).
 * @param options.runner - the testbed runner (default the real testbed, `runTestbedJob`).
 */
export async function uiSession(
  options: { runner?: TestbedJobRunner; network?: { fileName: string; text: string } } = {},
): Promise<UiSession> {
  const assetsDir = await mkdtemp(join(tmpdir(), 'difftry-ui-'));
  await buildUi(assetsDir);
  const server = await startUiServer({
    assetsDir,
    host: '127.0.0.1',
    port: 0,
    runner: options.runner ?? runTestbedJob,
    ...(options.network !== undefined && { network: options.network }),
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  const pages: Page[] = [];
  return {
    assetsDir,
    server,
    browser,
    async open(query = '') {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      pages.push(page);
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${server.url}${query}`);
      return { page, errors };
    },
    async screenshot(page, name) {
      await mkdir(SCREENSHOT_DIR, { recursive: true });
      const path = join(SCREENSHOT_DIR, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    async close() {
      for (const page of pages) await page.close().catch(() => undefined);
      await browser.close();
      await server.close();
      await rm(assetsDir, { recursive: true, force: true });
    },
  };
}
