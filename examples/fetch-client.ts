/**
 * A fetch client with DiffTry retries, against a local "orders" service that rejects its first
 * two attempts with 503 as an overloaded service would. Run it with `npx tsx examples/fetch-client.ts`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
// In an application: import { difftryFetch } from 'difftry';
import { difftryFetch } from '../src/index.js';

export async function main(log: (line: string) => void = console.log) {
  let attempts = 0;
  const orders = createServer((req, res) => {
    attempts++;
    if (attempts <= 2) res.writeHead(503).end('busy');
    else res.end(`order for a ${req.headers['x-priority']} customer`);
  });
  await new Promise<void>((resolve) => orders.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(orders.address() as AddressInfo).port}/api`;
  try {
    const fetchWithRetries = difftryFetch({
      classes: { high: { retries: 5 }, low: { retries: 1 } },
      defaultClass: 'low',
      header: 'x-priority',
      backoff: { kind: 'exponential', baseMs: 50, maxMs: 2000, jitter: 'full' },
    });
    const res = await fetchWithRetries(url, { headers: { 'x-priority': 'high' } });
    const text = await res.text();
    log(`${res.status} ${text} (after ${attempts} attempts)`);
    return { status: res.status, text, attempts };
  } finally {
    orders.closeAllConnections();
    orders.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
