import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latencyExampleCsv } from '../../scripts/generate-latencies.js';
import { timeoutsEvalCommand } from '../../src/cli/timeoutsEvalCommand.js';
import { timeoutsFitCommand } from '../../src/cli/timeoutsFitCommand.js';
import { PAPER_TIME_FRACTIONS } from '../../src/experiments/timeouts/paperFigures.js';
import { linearCost } from '../../src/model/timeouts/linearCost.js';
import { lognormalLatency } from '../../src/model/timeouts/lognormalLatency.js';
import { optimizeTimeouts } from '../../src/model/timeouts/optimizeTimeouts.js';
import { fixed, significant } from '../../src/report/numberFormat.js';
import { CHROMIUM_PRESENT, type UiSession, uiSession } from './uiHarness.js';

/** The sample the tests upload: 1 500 latencies of the bimodal example law, another seed. */
const SAMPLE_CSV = latencyExampleCsv(1500, 7);

/** How the view prints a ladder and E_0: the CLI's seconds (4 significant digits), comma-separated. */
const ladderText = (sequence: readonly number[]) => sequence.map((t) => significant(t)).join(', ');

/** P(Z > z) for a standard normal Z, by Simpson's rule on its density (1e-12 here): not the model's erfc. */
function normalTail(z: number): number {
  const steps = 4000;
  const h = Math.abs(z) / steps;
  const phi = (x: number) => Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
  let sum = phi(0) + phi(Math.abs(z));
  for (let k = 1; k < steps; k++) sum += (k % 2 === 1 ? 4 : 2) * phi(k * h);
  const half = (h / 3) * sum; // ∫_0^|z| φ
  return z >= 0 ? 0.5 - half : 0.5 + half;
}

/** A handle's value (aria-valuenow), the number the page solved with. */
async function handleValue(handle: Locator): Promise<number> {
  return Number(await handle.getAttribute('aria-valuenow'));
}

/** Drags an SVG handle horizontally by `dx` CSS pixels with the mouse. */
async function dragBy(page: Page, handle: Locator, dx: number): Promise<void> {
  await handle.scrollIntoViewIfNeeded();
  const box = await handle.boundingBox();
  if (box === null) throw new Error('the handle is not visible');
  const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + dx, y, { steps: 8 });
  await page.mouse.up();
}

describe.skipIf(!CHROMIUM_PRESENT)('the web UI in Chromium: the Timeouts view', () => {
  let session: UiSession;
  let directory = '';
  let samplePath = '';

  beforeAll(async () => {
    session = await uiSession();
    directory = await mkdtemp(join(tmpdir(), 'difftry-ui-timeouts-'));
    samplePath = join(directory, 'latencies.csv');
    await writeFile(samplePath, SAMPLE_CSV);
  });
  afterAll(async () => {
    await session?.close();
    await rm(directory, { recursive: true, force: true });
  });

  /** Opens the view and waits until it is drawn. */
  async function openTimeouts(query = ''): Promise<{ page: Page; errors: string[] }> {
    const opened = await session.open(`?view=timeouts${query}`);
    await opened.page.locator('section#timeouts[data-ready="true"]').waitFor();
    await expect.poll(() => opened.page.getByTestId('sequence').textContent()).not.toBe('');
    return opened;
  }

  /** What `difftry timeouts fit SAMPLE --json --depth D [--tz S]` prints, as the view shows it. */
  async function fitText(depth: number, tz: number): Promise<{ sequence: string; e0: string }> {
    const { stdout } = await timeoutsFitCommand({ file: samplePath, depth, tz, json: true });
    const fit = JSON.parse(stdout) as { sequence: number[]; E0: number };
    return { sequence: ladderText(fit.sequence), e0: significant(fit.E0) };
  }

  async function shownLadder(page: Page): Promise<{ sequence: string; e0: string }> {
    return {
      sequence: (await page.getByTestId('sequence').textContent()) ?? '',
      e0: (await page.getByTestId('e0').textContent()) ?? '',
    };
  }

  it('loads with no console error, every figure drawn, in both themes', async () => {
    const { page, errors } = await openTimeouts('&theme=light');
    expect(await page.getByTestId('sequence').textContent()).toMatch(/^[\d.]+(, [\d.]+)*$/);
    expect(await page.getByTestId('e0').textContent()).toMatch(/^[\d.]+$/);
    expect(await page.getByTestId('timeout-probability').textContent()).toMatch(/^0\.\d{4}$/);
    expect(await page.getByTestId('trace-time-fraction').textContent()).toMatch(/^\d\.\d{3}$/);
    expect(await page.locator('.timeouts-tree-dot').count()).toBeGreaterThanOrEqual(4);
    await session.screenshot(page, 'timeouts');
    await page.getByTestId('theme-toggle').click();
    await session.screenshot(page, 'timeouts-dark');
    expect(errors).toEqual([]);
  });

  it('an uploaded sample: dragging t_z (mouse, then keys) gives what timeouts fit prints', async () => {
    const { page, errors } = await openTimeouts();
    await page.getByTestId('latency-file').setInputFiles({
      name: 'latencies.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(SAMPLE_CSV),
    });
    await expect
      .poll(() => page.getByTestId('latency-file-summary').textContent())
      .toContain('latencies.csv: 1500 latencies');
    const handle = page.getByTestId('tz-handle');
    const depth = Number(await page.getByTestId('depth').inputValue());
    expect(depth).toBe(4);
    // Before any move t_z is the default ceiling: the CLI's without --tz, the same number.
    const before = await shownLadder(page);
    expect(before).toEqual(await fitText(depth, await handleValue(handle)));

    const tzBefore = await handleValue(handle);
    await dragBy(page, handle, -200);
    const tzDragged = await handleValue(handle);
    expect(tzDragged).toBeLessThan(tzBefore);
    const dragged = await shownLadder(page);
    expect(dragged).not.toEqual(before);
    expect(dragged, `tz = ${tzDragged}`).toEqual(await fitText(depth, tzDragged));

    await handle.focus();
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowLeft');
    const tzKeyed = await handleValue(handle);
    expect(tzKeyed).toBeLessThan(tzDragged);
    const keyed = await shownLadder(page);
    expect(keyed).not.toEqual(dragged);
    expect(keyed, `tz = ${tzKeyed}`).toEqual(await fitText(depth, tzKeyed));
    expect(errors).toEqual([]);
  });

  it('a bad latency file shows the error timeouts fit gives, and keeps the law', async () => {
    const { page, errors } = await openTimeouts();
    const ladder = await shownLadder(page);
    await page.getByTestId('latency-file').setInputFiles({
      name: 'bad.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('latency_s\n0.1\nfast\n'),
    });
    await expect
      .poll(() => page.getByTestId('latency-file-error').textContent())
      .toBe('bad.csv:3: expected a latency in seconds (a positive number), got "fast"');
    expect(await shownLadder(page)).toEqual(ladder);
    expect(errors).toEqual([]);
  });

  it('the Markov handle moves timeout-probability to b(t) of the law', async () => {
    const [median, sigma] = [0.2, 0.6];
    const { page, errors } = await openTimeouts(`&law=lognormal&median=${median}&sigma=${sigma}`);
    const handle = page.getByTestId('markov-t-handle');
    const b = (t: number) => normalTail((Math.log(t) - Math.log(median)) / sigma);
    const t0 = await handleValue(handle);
    await dragBy(page, handle, 120);
    const dragged = await handleValue(handle);
    expect(dragged).toBeGreaterThan(t0);
    expect(await page.getByTestId('timeout-probability').textContent()).toBe(b(dragged).toFixed(4));
    await handle.focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
    const keyed = await handleValue(handle);
    expect(keyed).toBeGreaterThan(dragged);
    expect(await page.getByTestId('timeout-probability').textContent()).toBe(b(keyed).toFixed(4));
    expect(errors).toEqual([]);
  });

  it('a link reproduces the view, and a move is written back to the link', async () => {
    const query = '&law=lognormal&median=0.2&sigma=0.6&tz=0.9&depth=3&cost=0.05';
    const { page, errors } = await openTimeouts(`${query}&scenario=dips&strategy=rto`);
    const law = lognormalLatency({ median: 0.2, sigma: 0.6 });
    const expected = optimizeTimeouts(law, { depth: 3, tz: 0.9, cost: linearCost({ c1: 0.05 }) });
    expect(await shownLadder(page)).toEqual({
      sequence: ladderText(expected.sequence),
      e0: significant(expected.E0),
    });
    expect(await page.getByTestId('depth').inputValue()).toBe('3');
    expect(await page.getByTestId('cost').inputValue()).toBe('0.05');
    expect(await page.getByTestId('scenario-picker').inputValue()).toBe('dips');
    expect(await page.getByTestId('strategy-picker').inputValue()).toBe('rto');
    await page.getByTestId('tz-handle').focus();
    await page.keyboard.press('PageUp');
    const tz = await handleValue(page.getByTestId('tz-handle'));
    await expect.poll(() => new URL(page.url()).searchParams.get('tz')).toBe(String(tz));
    const again = await openTimeouts(new URL(page.url()).search.replace('?view=timeouts', ''));
    expect(await shownLadder(again.page)).toEqual(await shownLadder(page));
    expect([...errors, ...again.errors]).toEqual([]);
  });

  it('a scenario and strategy show the Time Fraction timeouts eval gives for 800 requests', async () => {
    const { page, errors } = await openTimeouts();
    for (const [scenario, strategy] of [
      ['fast-increase', 'optimizer'],
      ['random-walk', 'exponential-backoff'],
    ] as const) {
      await page.getByTestId('scenario-picker').selectOption(scenario);
      await page.getByTestId('strategy-picker').selectOption(strategy);
      const { stdout } = await timeoutsEvalCommand({
        scenario,
        strategies: strategy,
        requests: 800,
        json: true,
      });
      const [row] = JSON.parse(stdout).results as { timeFraction: number }[];
      expect(await page.getByTestId('trace-time-fraction').textContent(), scenario).toBe(
        fixed(row?.timeFraction ?? Number.NaN, 3),
      );
      const paper = PAPER_TIME_FRACTIONS[scenario];
      expect(await page.getByTestId('trace-paper-time-fraction').textContent()).toBe(
        `Combined ${paper.combined}, exponential backoff ${paper.exponentialBackoff}`,
      );
    }
    expect(errors).toEqual([]);
  });
});
