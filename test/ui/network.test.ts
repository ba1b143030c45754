import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeCommand } from '../../src/cli/analyzeCommand.js';
import { parseNetwork } from '../../src/config/parseNetwork.js';
import { CHROMIUM_PRESENT, type UiSession, uiSession } from './uiHarness.js';

/** The end-to-end rejection `difftry analyze --json` prints for a file's text, 4 decimals. */
async function analyzedRejection(
  text: string,
  className: string,
  retries?: Record<string, number>,
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'difftry-ui-network-'));
  try {
    const file = join(dir, 'net.yaml');
    await writeFile(file, text);
    const { stdout } = await analyzeCommand({ file, json: true, ...(retries && { retries }) });
    const report = JSON.parse(stdout) as { endToEnd: Record<string, { rejection: number }> };
    return (report.endToEnd[className]?.rejection ?? Number.NaN).toFixed(4);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Waits until the view shows a network: its figures written and its graph laid out. */
async function networkShown(page: Page): Promise<void> {
  await page.locator('section#network[data-ready="true"]').waitFor();
  await page.locator('[data-testid="network-graph"][data-state="ready"]').waitFor();
  await expect.poll(() => page.getByTestId('rejection-high').textContent()).toMatch(/^\d\.\d{4}$/);
}

/** Drops a file on the Network view as a drag from the desktop would (a `drop` event). */
async function dropFile(page: Page, name: string, text: string): Promise<void> {
  await page.evaluate(`(() => {
    const data = new DataTransfer();
    data.items.add(new File([${JSON.stringify(text)}], ${JSON.stringify(name)}, { type: 'text/yaml' }));
    const view = document.getElementById('network');
    view.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
    view.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
  })()`);
}

describe.skipIf(!CHROMIUM_PRESENT)('the web UI in Chromium: the Network view', () => {
  let session: UiSession;
  let hotelCalls: string;
  beforeAll(async () => {
    session = await uiSession();
    hotelCalls = await readFile('examples/hotel-calls.yaml', 'utf8');
  });
  afterAll(async () => {
    await session?.close();
  });

  it('loads hotelReservation with no console error: graph, figures, sweep chart', async () => {
    const { page, errors } = await session.open('?view=network&example=hotel-calls');
    await networkShown(page);
    expect(await page.getByTestId('example-picker').inputValue()).toBe('hotel-calls');
    // Eight services and the clients, every edge drawn; both configurations' lines per class.
    expect(await page.locator('[data-testid="network-graph"] [data-service]').count()).toBe(8);
    expect(await page.locator('[data-testid="network-graph"] .network-edge').count()).toBe(8);
    await expect.poll(() => page.locator('path.network-healthy').count()).toBe(4);
    expect(await page.getByTestId('bistable').isVisible()).toBe(false);
    await session.screenshot(page, 'network');
    // A tooltip on a service names its figures.
    await page.locator('[data-service="frontend"]').hover();
    expect(await page.locator('.tooltip').textContent()).toMatch(/^frontend: μ 143 requests\/s/);
    expect(errors).toEqual([]);
  });

  it('re-solves on every slider event to exactly what difftry analyze prints', async () => {
    const { page, errors } = await session.open('?view=network&example=hotel-calls');
    await networkShown(page);
    const file = await analyzedRejection(hotelCalls, 'high');
    expect(await page.getByTestId('rejection-high').textContent()).toBe(file);

    await page.getByTestId('arrival-low').fill('180');
    const at180 = hotelCalls.replace(
      'arrivals: { high: 50, low: 250 }',
      'arrivals: { high: 50, low: 180 }',
    );
    expect(at180).not.toBe(hotelCalls);
    const expected = await analyzedRejection(at180, 'high');
    expect(expected).not.toBe(file);
    await expect.poll(() => page.getByTestId('rejection-high').textContent()).toBe(expected);
    expect(new URL(page.url()).searchParams.get('arrival.low')).toBe('180');

    // The keyboard moves it too (one step, 1 request/s): 181.
    await page.getByTestId('arrival-low').press('ArrowRight');
    const at181 = hotelCalls.replace('low: 250 }', 'low: 181 }');
    await expect
      .poll(() => page.getByTestId('rejection-high').textContent())
      .toBe(await analyzedRejection(at181, 'high'));

    // A class's retry limit is `--retries CLASS=k` (the file overrides it at no service).
    await page.getByTestId('retries-low').fill('3');
    await expect
      .poll(() => page.getByTestId('rejection-high').textContent())
      .toBe(await analyzedRejection(at181, 'high', { low: 3 }));
    await expect
      .poll(() => page.getByTestId('rejection-low').textContent())
      .toBe(await analyzedRejection(at181, 'low', { low: 3 }));

    // A link holds the parameters: the same figures on a new page.
    const again = await session.open(new URL(page.url()).search);
    await networkShown(again.page);
    expect(await again.page.getByTestId('rejection-high').textContent()).toBe(
      await page.getByTestId('rejection-high').textContent(),
    );
    expect(await again.page.getByTestId('retries-low').inputValue()).toBe('3');
    expect([...errors, ...again.errors]).toEqual([]);
  });

  it('shows a bad file’s one-line error and keeps the network on show', async () => {
    const { page, errors } = await session.open('?view=network&example=hotel-calls');
    await networkShown(page);
    const before = await page.getByTestId('rejection-high').textContent();
    const bad = hotelCalls.replace('capacity: 143', 'capacity: -3');
    let message = '';
    try {
      parseNetwork(bad, 'net.yaml');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(
      /^net\.yaml:\d+:\d+: services\[0\]\.capacity: expected a positive number/,
    );
    await page.getByTestId('file-input').setInputFiles({
      name: 'net.yaml',
      mimeType: 'text/yaml',
      buffer: Buffer.from(bad),
    });
    await expect.poll(() => page.getByTestId('file-error').textContent()).toBe(message);
    expect(await page.getByTestId('rejection-high').textContent()).toBe(before);
    expect(await page.getByTestId('example-picker').inputValue()).toBe('hotel-calls');
    expect(new URL(page.url()).searchParams.get('example')).toBe('hotel-calls');
    // Dropped on the view rather than chosen: the same check, the same line.
    const unknownClass = hotelCalls.replace(
      'arrivals: { high: 50, low: 250 }',
      'arrivals: { gold: 50 }',
    );
    let dropMessage = '';
    try {
      parseNetwork(unknownClass, 'dropped.yaml');
    } catch (error) {
      dropMessage = (error as Error).message;
    }
    expect(dropMessage).toMatch(/^dropped\.yaml:\d+:\d+: /);
    await dropFile(page, 'dropped.yaml', unknownClass);
    await expect.poll(() => page.getByTestId('file-error').textContent()).toBe(dropMessage);
    expect(await page.getByTestId('rejection-high').textContent()).toBe(before);
    expect(errors).toEqual([]);
  });

  it('simulates the sweep in a worker and draws its 95 % bars; cancel stops it', async () => {
    const { page, errors } = await session.open('?view=network&example=hotel');
    await networkShown(page);
    await page.getByTestId('simulate-button').click();
    await page.getByTestId('simulate-cancel').click();
    expect(await page.getByTestId('simulate-status').textContent()).toBe('Cancelled.');
    expect(await page.getByTestId('sim-bar').count()).toBe(0);

    await page.getByTestId('simulate-button').click();
    await expect
      .poll(() => page.getByTestId('simulate-status').textContent(), { timeout: 120_000 })
      .toMatch(/^Simulated 40 points in/);
    expect(await page.getByTestId('simulate-progress').getAttribute('value')).toBe('1');
    // 20 swept rates × 2 configurations × 2 classes.
    expect(await page.getByTestId('sim-bar').count()).toBe(80);
    await session.screenshot(page, 'network-simulated');
    expect(errors).toEqual([]);
  });

  it('says "bistable" and draws both branches where the analysis finds two equilibria', async () => {
    const { page, errors } = await session.open('?view=network&example=hotel');
    await networkShown(page);
    const metastable = await readFile('examples/metastable-classes.yaml', 'utf8');
    await dropFile(page, 'metastable-classes.yaml', metastable);
    await expect
      .poll(() => page.getByTestId('network-origin').textContent())
      .toMatch(/^metastable-classes\.yaml, opened in this page/);
    expect(new URL(page.url()).searchParams.get('example')).toBeNull();
    await page.locator('[data-testid="network-graph"][data-state="ready"]').waitFor();
    const badge = page.getByTestId('bistable');
    expect(await badge.isVisible()).toBe(true);
    expect(await badge.textContent()).toBe('bistable');
    // The sweep says where it tips and recovers, as `analyze --sweep` does, and draws the loop.
    await expect
      .poll(() => page.getByTestId('sweep-summary').textContent())
      .toMatch(/bistable: tips above api\.low = 64\.36; recovers below api\.low = 13\.95/);
    expect(await page.locator('line.network-jump').count()).toBeGreaterThan(0);
    expect(await page.locator('circle.network-storm-dot').count()).toBeGreaterThan(0);
    await session.screenshot(page, 'network-bistable');

    // The dark theme recolours the graph and redraws the chart from the CSS variables.
    const fill = () => page.locator('[data-service="api"] rect').getAttribute('fill');
    const light = await fill();
    await page.getByTestId('theme-toggle').click();
    await expect.poll(fill).not.toBe(light);
    await session.screenshot(page, 'network-dark');
    expect(errors).toEqual([]);
  });
});

describe.skipIf(!CHROMIUM_PRESENT)('the web UI in Chromium: a network given to difftry ui', () => {
  let session: UiSession;
  let text: string;
  beforeAll(async () => {
    text = await readFile('examples/two-tier.yaml', 'utf8');
    session = await uiSession({ network: { fileName: 'my-net.yaml', text } });
  });
  afterAll(async () => {
    await session?.close();
  });

  it('opens it first, says so in the URL, and has a slider per per-service limit', async () => {
    const { page, errors } = await session.open('?view=network');
    await networkShown(page);
    expect(new URL(page.url()).searchParams.get('file')).toBe('my-net.yaml');
    expect(new URL(page.url()).searchParams.get('example')).toBeNull();
    expect(await page.getByTestId('network-origin').textContent()).toBe(
      'my-net.yaml, given to difftry ui.',
    );
    expect(await page.getByTestId('rejection-low').textContent()).toBe(
      await analyzedRejection(text, 'low'),
    );
    // search overrides k for the low class: its own slider, as an edit of the file.
    await page.getByTestId('retries-search-low').fill('2');
    const edited = text.replace('retries: { low: 0 }', 'retries: { low: 2 }');
    expect(edited).not.toBe(text);
    await expect
      .poll(() => page.getByTestId('rejection-low').textContent())
      .toBe(await analyzedRejection(edited, 'low'));
    expect(new URL(page.url()).searchParams.get('retries.search.low')).toBe('2');
    expect(errors).toEqual([]);
  });
});
