/**
 * The process scripts/traces-memory.ts measures: runs the CLI (`main` of src/cli/program.ts) on
 * its arguments, as `difftry` would, then writes one line to stderr, `traces-memory: {…}`, with
 * what the kernel and V8 say of this process:
 * - `maxRssKiB`: `process.resourceUsage().maxRSS`, getrusage's `ru_maxrss`, the kernel's
 *   high-water mark of the process's resident memory over its whole life (no sampling to miss a
 *   peak);
 * - `heapLimitBytes`: the V8 heap limit in effect (`heap_size_limit`);
 * - `seconds`: the wall time of `main` alone (reading, inference, output), without loading the
 *   modules;
 * - `sampled`: the largest heap, external and array-buffer figures of `process.memoryUsage()`
 *   seen every 250 ms: only while the process awaits, that is while it reads (the inference is
 *   one synchronous step), for telling the heap from typed arrays there.
 *
 * Run with `node --import tsx scripts/traces-memory-child.ts from-traces FILE --json`.
 */
import { getHeapStatistics } from 'node:v8';
import { main } from '../src/cli/program.js';

const sampled = { heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0, rss: 0 };
const sample = () => {
  const usage = process.memoryUsage();
  sampled.heapUsed = Math.max(sampled.heapUsed, usage.heapUsed);
  sampled.heapTotal = Math.max(sampled.heapTotal, usage.heapTotal);
  sampled.external = Math.max(sampled.external, usage.external);
  sampled.arrayBuffers = Math.max(sampled.arrayBuffers, usage.arrayBuffers);
  sampled.rss = Math.max(sampled.rss, usage.rss);
};
const timer = setInterval(sample, 250);
const started = performance.now();
const code = await main(process.argv.slice(2));
const seconds = (performance.now() - started) / 1000;
// No last sample: it would count the inference's garbage, which the samples are not about.
clearInterval(timer);
const report = {
  exitCode: code,
  seconds,
  maxRssKiB: process.resourceUsage().maxRSS,
  heapLimitBytes: getHeapStatistics().heap_size_limit,
  sampled,
};
process.stderr.write(`traces-memory: ${JSON.stringify(report)}\n`);
process.exitCode = code;
