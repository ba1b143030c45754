import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_PRESENT, type UiSession, uiSession } from './uiHarness.js';

describe.skipIf(!CHROMIUM_PRESENT)('the web UI in Chromium: shell and testbed', () => {
  let session: UiSession;
  beforeAll(async () => {
    session = await uiSession();
  });
  afterAll(async () => {
    await session?.close();
  });

  it('loads every view with no console error, state in the URL', async () => {
    const { page, errors } = await session.open('');
    for (const view of ['network', 'timeouts', 'testbed']) {
      await page.getByTestId(`view-${view}`).click();
      await page.locator(`section#${view}[data-ready="true"]`).waitFor();
      expect(await page.locator(`section#${view}`).isVisible(), view).toBe(true);
      expect(new URL(page.url()).searchParams.get('view')).toBe(view);
    }
    await page.waitForTimeout(300);
    expect(errors).toEqual([]);
  });

  it('switches between light and dark themes, and a link keeps the theme', async () => {
    const { page, errors } = await session.open('?view=testbed&theme=light');
    await page.locator('section#testbed[data-ready="true"]').waitFor();
    // Evaluated in the page (the tests' own type-check has no DOM types).
    const background = () => page.evaluate('getComputedStyle(document.body).backgroundColor');
    const light = await background();
    await page.getByTestId('theme-toggle').click();
    expect(await page.evaluate('document.documentElement.dataset.theme')).toBe('dark');
    expect(await background()).not.toBe(light);
    expect(new URL(page.url()).searchParams.get('theme')).toBe('dark');
    const again = await session.open(new URL(page.url()).search);
    expect(await again.page.evaluate('document.documentElement.dataset.theme')).toBe('dark');
    expect([...errors, ...again.errors]).toEqual([]);
  });

  it('streams a measured point of a short real testbed run, beside its prediction', async () => {
    const { page, errors } = await session.open('?view=testbed');
    await page.locator('section#testbed[data-ready="true"]').waitFor();
    await page.getByTestId('testbed-kind').selectOption('run');
    await page.getByTestId('testbed-duration').fill('1.5');
    await page.getByTestId('testbed-warmup').fill('0.3');
    await page.getByTestId('testbed-scale').fill('0.1');
    await page.getByTestId('testbed-start').click();
    await page.getByTestId('testbed-point').first().waitFor({ timeout: 60_000 });
    await expect
      .poll(() => page.getByTestId('testbed-status').textContent(), { timeout: 30_000 })
      .toMatch(/^done after/);
    const rows = await page.getByTestId('testbed-row').allTextContents();
    expect(rows.length).toBe(2); // high and low
    expect(await page.getByTestId('testbed-point').count()).toBe(2);
    await session.screenshot(page, 'testbed');
    // A second start while one runs is refused, with the reason shown.
    await page.getByTestId('testbed-duration').fill('60');
    await page.getByTestId('testbed-start').click();
    await page.getByTestId('testbed-stop').waitFor({ state: 'visible' });
    const second = (await page.evaluate(`fetch('api/testbed', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'run' }),
    }).then(async (r) => ({ status: r.status, body: await r.json() }))`)) as {
      status: number;
      body: { error: string };
    };
    expect(second.status).toBe(409);
    expect(second.body.error).toMatch(/already running/);
    await page.getByTestId('testbed-stop').click();
    await expect
      .poll(() => page.getByTestId('testbed-status').textContent(), { timeout: 30_000 })
      .toMatch(/^stopped after/);
    // The browser logs the refused request (409) it was asked to make; nothing else.
    expect(errors).toEqual([
      'Failed to load resource: the server responded with a status of 409 (Conflict)',
    ]);
  });
});
