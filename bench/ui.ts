/**
 * The web UI in a real browser (Debian's Chromium through playwright-core), beside Node peers:
 *
 * - **network slider**: hotelReservation (`hotel-calls`), `arrival-low` moved by 60 arrow-key
 *   steps; per input event the page's `network-update` measure (re-solve + redraw, target ≤ 16 ms
 *   median) and the time from the event to the next animation frame; peer: the same analysis
 *   (`toNetworkModel` + `analyzeNetwork`) in Node, per call.
 * - **t_z drag**: the Timeouts view's default law, `tz-handle` moved by 60 arrow-key steps; the
 *   page's `timeouts-update` measure (Optimizer tree search + redraw, target ≤ 16 ms median);
 *   peer: `optimizeTimeouts` alone in Node.
 * - **first load** on loopback: navigation to the network view's first rejection figure, median of
 *   5 cold pages; and the **bundle**: every built asset, raw and gzip, and what the first load
 *   fetched.
 *
 * Run alone with `npm run bench:ui` (skipped, saying so, without Chromium).
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { builtinExample } from '../src/config/examples.js';
import { parseNetwork } from '../src/config/parseNetwork.js';
import { toNetworkModel } from '../src/config/toNetworkModel.js';
import { analyzeNetwork } from '../src/model/network/analyzeNetwork.js';
import { CHROMIUM_PATH, CHROMIUM_PRESENT, uiSession } from '../test/ui/uiHarness.js';
import { median, medianMillis, report } from './harness.js';

const STEPS = 60;

/** Every file under `dir`, recursively, with its size and gzip size. */
async function assetSizes(dir: string): Promise<{ path: string; raw: number; gzip: number }[]> {
  const found: { path: string; raw: number; gzip: number }[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const body = await readFile(path);
    found.push({
      path: path.slice(dir.length + 1),
      raw: (await stat(path)).size,
      gzip: gzipSync(body).length,
    });
  }
  return found;
}

/** The durations (ms) of a page's performance measures named `name`, then clears them. */
async function measures(page: Page, name: string): Promise<number[]> {
  return (await page.evaluate(
    `(() => { const d = performance.getEntriesByName(${JSON.stringify(name)}).map((e) => e.duration); performance.clearMeasures(${JSON.stringify(name)}); return d; })()`,
  )) as number[];
}

/**
 * Presses `key` on the focused element `steps` times; per press the time (ms) from the key
 * event to the next animation frame after the page handled it.
 */
async function keyToFrame(
  page: Page,
  testId: string,
  key: string,
  steps: number,
): Promise<number[]> {
  await page.getByTestId(testId).focus();
  return (await page.evaluate(`(async () => {
    const el = document.querySelector('[data-testid="${testId}"]');
    const times = [];
    for (let i = 0; i < ${steps}; i++) {
      const t0 = performance.now();
      el.dispatchEvent(new KeyboardEvent('keydown', { key: '${key}', bubbles: true }));
      if (el instanceof HTMLInputElement) {
        el.stepUp();
        el.dispatchEvent(new Event('input', { bubbles: true }));
      }
      await new Promise((resolve) => requestAnimationFrame(() => resolve()));
      times.push(performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return times;
  })()`)) as number[];
}

const quantile = (values: readonly number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
const ms = (x: number) => `${x.toFixed(2)} ms`;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

export async function run(): Promise<void> {
  if (!CHROMIUM_PRESENT) {
    report('web UI (browser)', [
      ['skipped', `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium)`],
    ]);
    return;
  }
  const session = await uiSession({
    runner: async () => {
      throw new Error('the benchmark starts no testbed');
    },
  });
  const { browser, server } = session;
  try {
    // First load, cold pages (a new context each: no cache).
    const loads: number[] = [];
    let fetched = 0;
    for (let i = 0; i < 5; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      let bytes = 0;
      context.on('response', async (response) => {
        bytes += (await response.body().catch(() => Buffer.alloc(0))).length;
      });
      await page.goto(`${server.url}?view=network&example=hotel-calls`);
      await page.waitForFunction(
        "/^\\d\\.\\d{4}$/.test(document.querySelector('[data-testid=\"rejection-high\"]')?.textContent ?? '')",
      );
      loads.push((await page.evaluate('performance.now()')) as number);
      fetched = bytes;
      await context.close();
    }

    // The network slider.
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}?view=network&example=hotel-calls`);
    await page.getByTestId('arrival-low').waitFor();
    await measures(page, 'network-update');
    const networkFrames = await keyToFrame(page, 'arrival-low', 'ArrowRight', STEPS);
    const networkUpdates = await measures(page, 'network-update');
    const spec = parseNetwork(builtinExample('hotel-calls').text, 'hotel-calls.yaml');
    let solved = 0;
    const nodeSolve = medianMillis(
      () => {
        solved += analyzeNetwork(toNetworkModel(spec)).endToEnd.high?.rejection ?? 0;
      },
      30,
      500,
    );
    if (!(solved > 0)) throw new Error('the Node peer solved nothing');

    // The t_z handle.
    await page.goto(`${server.url}?view=timeouts`);
    await page.getByTestId('tz-handle').waitFor();
    await measures(page, 'timeouts-update');
    const tzFrames = await keyToFrame(page, 'tz-handle', 'ArrowLeft', STEPS);
    const tzUpdates = await measures(page, 'timeouts-update');
    if (networkUpdates.length < STEPS / 2 || tzUpdates.length < STEPS / 2) {
      throw new Error(
        `too few updates measured (network ${networkUpdates.length}, timeouts ${tzUpdates.length} of ${STEPS}): the page's performance measures are missing`,
      );
    }

    const sizes = await assetSizes(session.assetsDir);
    const total = sizes.reduce((sum, s) => sum + s.raw, 0);
    const totalGzip = sizes.reduce((sum, s) => sum + s.gzip, 0);
    const largest = [...sizes].sort((a, b) => b.raw - a.raw).slice(0, 4);
    report('web UI in Chromium (hotelReservation, default timeouts law)', [
      [
        'network slider: re-solve + redraw',
        `median ${ms(median(networkUpdates))}, p95 ${ms(quantile(networkUpdates, 0.95))} (target ≤ 16 ms median; ${networkUpdates.length} events)`,
      ],
      [
        '  event → next frame',
        `median ${ms(median(networkFrames))}, p95 ${ms(quantile(networkFrames, 0.95))}`,
      ],
      [
        '  peer: analyzeNetwork in Node',
        `${ms(nodeSolve)} per solve; browser update / Node solve = ${(median(networkUpdates) / nodeSolve).toFixed(2)}×`,
      ],
      [
        't_z drag: tree search + redraw',
        `median ${ms(median(tzUpdates))}, p95 ${ms(quantile(tzUpdates, 0.95))} (target ≤ 16 ms median; ${tzUpdates.length} events)`,
      ],
      [
        '  event → next frame',
        `median ${ms(median(tzFrames))}, p95 ${ms(quantile(tzFrames, 0.95))}`,
      ],
      [
        'first load (loopback, cold)',
        `median ${ms(median(loads))} to the first rejection figure (5 pages)`,
      ],
      [
        '  fetched before the first figure',
        `${kib(fetched)} (the graph layout's worker comes after)`,
      ],
      ['bundle (dist/web)', `${kib(total)} raw, ${kib(totalGzip)} gzip, ${sizes.length} files`],
      ...largest.map((s): [string, string] => [
        `  ${s.path}`,
        `${kib(s.raw)} raw, ${kib(s.gzip)} gzip`,
      ]),
    ]);
  } finally {
    await session.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
