/**
 * `npm run ui:screenshots [-- --out DIR]`: builds the web UI, serves it with the `difftry ui`
 * server on loopback and saves a screenshot of each view with Debian's Chromium (playwright-core).
 * Writes docs/ui/*.png by default — the pictures docs/ui.md shows — or into --out. Chromium is
 * `/usr/bin/chromium`, or `DIFFTRY_CHROMIUM`.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CHROMIUM_PATH, CHROMIUM_PRESENT, uiSession } from '../test/ui/uiHarness.js';

const { values } = parseArgs({ options: { out: { type: 'string', default: join('docs', 'ui') } } });
const out = values.out as string;

/** The pictures: a name, the page's query, and what to do before the shot. */
const SHOTS: readonly {
  name: string;
  query: string;
  ready: string;
  prepare?: (page: import('playwright-core').Page) => Promise<void>;
}[] = [
  {
    name: 'network',
    query: '?view=network&example=hotel&theme=light',
    ready: '[data-testid="network-graph"][data-state="ready"]',
    prepare: async (page) => {
      await page.getByTestId('simulate-button').click();
      // The bars are drawn when the run is done; a bar of zero height counts as hidden.
      await page.getByTestId('sim-bar').first().waitFor({ state: 'attached', timeout: 120_000 });
    },
  },
  {
    name: 'network-dark',
    query: '?view=network&example=hotel-calls&theme=dark',
    ready: '[data-testid="network-graph"][data-state="ready"]',
  },
  {
    name: 'network-bistable',
    query: '?view=network&theme=light',
    ready: '[data-testid="network-graph"][data-state="ready"]',
    prepare: async (page) => {
      await page
        .getByTestId('file-input')
        .setInputFiles(join('examples', 'metastable-classes.yaml'));
      await page.getByTestId('bistable').waitFor();
    },
  },
  { name: 'timeouts', query: '?view=timeouts&theme=light', ready: '[data-testid="sequence"]' },
  {
    name: 'testbed',
    query: '?view=testbed&theme=light',
    ready: '[data-testid="testbed-start"]',
    prepare: async (page) => {
      await page.getByTestId('testbed-kind').selectOption('fig5');
      await page.getByTestId('testbed-duration').fill('6');
      await page.getByTestId('testbed-warmup').fill('3');
      await page.getByTestId('testbed-start').click();
      await page.waitForFunction(
        "document.querySelector('[data-testid=\"testbed-status\"]')?.textContent?.startsWith('done')",
        undefined,
        { timeout: 300_000 },
      );
    },
  },
];

if (!CHROMIUM_PRESENT) {
  console.error(
    `no Chromium at ${CHROMIUM_PATH}: apt-get install chromium, or set DIFFTRY_CHROMIUM`,
  );
  process.exit(2);
}
const session = await uiSession();
try {
  await mkdir(out, { recursive: true });
  for (const shot of SHOTS) {
    const { page } = await session.open(shot.query);
    await page.locator(shot.ready).first().waitFor({ timeout: 30_000 });
    await shot.prepare?.(page);
    await page.waitForTimeout(300);
    const path = join(out, `${shot.name}.png`);
    await page.screenshot({ path, fullPage: true });
    console.log(`wrote ${path}`);
    await page.close();
  }
} finally {
  await session.close();
}
