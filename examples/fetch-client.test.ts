import { expect, it } from 'vitest';
import { main } from './fetch-client.js';

it('retries a high request through two 503s to its answer', async () => {
  const lines: string[] = [];
  const result = await main((line) => lines.push(line));
  expect(result).toEqual({ status: 200, text: 'order for a high customer', attempts: 3 });
  expect(lines).toEqual(['200 order for a high customer (after 3 attempts)']);
});
