/**
 * Measures `difftry from-traces` on a large OTLP/JSON-lines file: its peak memory with Node's
 * default heap (the file is read as a stream, so what it holds is the store of spans, not the
 * text), how fast it reads, and that what it infers at that scale is right.
 *
 * 1. Writes a synthetic file (src/experiments/traces/syntheticOtlp.ts: `frontend` with Poisson
 *    arrivals of gold and bronze, calling `cart` and on 60 % of requests `catalog` in parallel,
 *    `cart` calling `db`, exponential service times, rejections and retries on `cart`) of about
 *    `--size` (default 1 GiB) into the OS's temporary directory, streaming it out with
 *    backpressure.
 * 2. Runs `node --import tsx scripts/traces-memory-child.ts from-traces FILE --json` as a child
 *    process with NODE_OPTIONS cleared (Node's default heap limit) and reads its peak RSS from the
 *    child's own `process.resourceUsage().maxRSS` (getrusage's `ru_maxrss`, the kernel's
 *    high-water mark; see that script).
 * 3. Prints the file's size, lines and spans, the child's time, spans per second and peak RSS
 *    (and its share of the file), the heap limit, and the inferred arrival rates, capacities,
 *    retries and call graph against the generator's truth.
 *
 * Run with `npx tsx scripts/traces-memory.ts [--size 1g|200m|N] [--bytes N] [--seed 1] [--keep]
 * [--backoff-ms 0]`. The file is deleted afterwards unless `--keep`. The same seed and size give
 * the same file. `--backoff-ms` puts a wait between a rejected attempt and its retry: the
 * inference counts no busy time for it (at 25 ms on 100 MiB, `frontend` −0.29 %; before it
 * excluded whole calls, −37 %).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, statfsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  type SyntheticOtlpTotals,
  syntheticOtlpLines,
} from '../src/experiments/traces/syntheticOtlp.js';
import { SYNTHETIC_SYSTEM, syntheticTruth } from '../src/experiments/traces/syntheticSystem.js';
import type { TraceEvidence } from '../src/traces/infer/TraceEvidence.js';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

const { values } = parseArgs({
  options: {
    size: { type: 'string' },
    bytes: { type: 'string' },
    seed: { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
    'backoff-ms': { type: 'string', default: '0' },
  },
  strict: true,
});

/** `1073741824`, `200m`, `1g`, `1.5GiB`: bytes (k, m, g are powers of 1024). */
function parseSize(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?:([kmg])(?:i?b)?)?\s*$/i.exec(text);
  if (match === null) throw new Error(`--size/--bytes: expected N, Nk, Nm or Ng, got "${text}"`);
  const power = { k: 1, m: 2, g: 3 }[(match[2] ?? '').toLowerCase() as 'k' | 'm' | 'g'] ?? 0;
  const bytes = Math.round(Number(match[1]) * 1024 ** power);
  if (!(bytes > 0)) throw new Error(`--size/--bytes: expected a positive size, got "${text}"`);
  return bytes;
}

const targetBytes = parseSize(values.bytes ?? values.size ?? '1g');
const seed = Number(values.seed);
if (!Number.isSafeInteger(seed)) throw new Error(`--seed: expected an integer, got ${values.seed}`);
const backoffMs = Number(values['backoff-ms']);
if (!(backoffMs >= 0)) throw new Error(`--backoff-ms: expected ≥ 0, got ${values['backoff-ms']}`);

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const fixed = (n: number, digits: number) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const mib = (bytes: number) => `${fixed(bytes / MIB, 1)} MiB`;
const gib = (bytes: number) => `${fixed(bytes / GIB, 3)} GiB`;
const relative = (value: number, truth: number) => {
  const error = ((value - truth) / truth) * 100;
  return `${error >= 0 ? '+' : '−'}${fixed(Math.abs(error), 2)} %`;
};
const line = (label: string, text: string) => console.log(`  ${label.padEnd(26)}${text}`);

const directory = tmpdir();
const { bavail, bsize } = statfsSync(directory);
const free = bavail * bsize;
if (free < targetBytes * 1.1 + 256 * MIB) {
  throw new Error(
    `${directory}: ${gib(free)} free, too little for a ${gib(targetBytes)} file; give a smaller --size`,
  );
}
const file = join(directory, `difftry-traces-memory-seed${seed}-${process.pid}.jsonl`);
const child = fileURLToPath(new URL('./traces-memory-child.ts', import.meta.url));
const repo = fileURLToPath(new URL('..', import.meta.url));

/** Writes the generator's lines to `path`, waiting for 'drain' whenever write() says to. */
async function writeLines(path: string): Promise<SyntheticOtlpTotals> {
  const out = createWriteStream(path);
  const lines = syntheticOtlpLines({ targetBytes, seed, backoffSeconds: backoffMs / 1000 });
  let next = lines.next();
  while (next.done !== true) {
    if (!out.write(next.value)) await once(out, 'drain');
    next = lines.next();
  }
  out.end();
  await finished(out);
  return next.value;
}

interface ChildReport {
  readonly exitCode: number;
  readonly seconds: number;
  readonly maxRssKiB: number;
  readonly heapLimitBytes: number;
  readonly sampled: Readonly<
    Record<'heapUsed' | 'heapTotal' | 'external' | 'arrayBuffers', number>
  >;
}

interface InferredService {
  readonly name: string;
  readonly calls?: readonly { readonly to: string; readonly n?: number; readonly mode?: string }[];
  readonly branches?: readonly {
    readonly p: number;
    readonly calls: readonly { readonly to: string; readonly n?: number; readonly mode?: string }[];
  }[];
}

/** Runs the CLI on the file in a child process with Node's default heap; its output and report. */
async function runChild(): Promise<{ stdout: string; report: ChildReport; wallSeconds: number }> {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const started = performance.now();
  const proc = spawn(process.execPath, ['--import', 'tsx', child, 'from-traces', file, '--json'], {
    cwd: repo,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  proc.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  proc.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  const [code, signal] = (await once(proc, 'close')) as [number | null, NodeJS.Signals | null];
  const wallSeconds = (performance.now() - started) / 1000;
  const errText = Buffer.concat(stderr).toString('utf8');
  const marker = /^traces-memory: (.*)$/m.exec(errText);
  if (code !== 0 || marker === null) {
    throw new Error(
      `the child exited with ${signal ?? code} after ${fixed(wallSeconds, 1)} s:\n${errText}`,
    );
  }
  return {
    stdout: Buffer.concat(stdout).toString('utf8'),
    report: JSON.parse(marker[1] as string) as ChildReport,
    wallSeconds,
  };
}

function callText(call: { readonly to: string; readonly n?: number; readonly mode?: string }) {
  return `${call.to}${call.n === undefined ? '' : ` ×${call.n}`}${call.mode === 'parallel' ? ' (parallel)' : ''}`;
}

try {
  console.log(
    `traces-memory: seed ${seed}, target ${int(targetBytes)} bytes (${gib(targetBytes)}), backoff ${backoffMs} ms, ${gib(free)} free in ${directory}, load average ${fixed(loadavg()[0] ?? 0, 2)} on ${availableParallelism()} cores`,
  );
  const generating = performance.now();
  const totals = await writeLines(file);
  const generateSeconds = (performance.now() - generating) / 1000;
  console.log(`generated ${file}`);
  line('file size', `${int(totals.bytes)} bytes (${gib(totals.bytes)})`);
  line('lines', `${int(totals.lines)} (${fixed(totals.spans / totals.lines, 1)} spans a line)`);
  line(
    'spans written',
    `${int(totals.spans)} (${Object.entries(totals.spansByService)
      .map(([s, n]) => `${s} ${int(n)}`)
      .join(', ')})`,
  );
  line(
    'entry requests',
    `${Object.entries(totals.requests)
      .map(([c, n]) => `${c} ${int(n)}`)
      .join(', ')} over ${fixed(totals.arrivalSeconds, 1)} simulated s`,
  );
  line(
    'generator',
    `${fixed(generateSeconds, 1)} s (${fixed(totals.bytes / MIB / generateSeconds, 1)} MiB/s), peak RSS ${mib(process.resourceUsage().maxRSS * 1024)}`,
  );

  console.log(
    'from-traces (node --import tsx scripts/traces-memory-child.ts from-traces FILE --json)',
  );
  const { stdout, report, wallSeconds } = await runChild();
  const rss = report.maxRssKiB * 1024;
  const { network, evidence } = JSON.parse(stdout) as {
    network: { services: InferredService[]; classes: { name: string; retries: number }[] };
    evidence: TraceEvidence;
  };
  line('V8 heap limit', `${mib(report.heapLimitBytes)} (Node's default; NODE_OPTIONS cleared)`);
  line(
    'wall time',
    `${fixed(report.seconds, 1)} s read + inference (child process ${fixed(wallSeconds, 1)} s; load average then ${fixed(loadavg()[0] ?? 0, 2)})`,
  );
  line(
    'spans read',
    `${int(evidence.spans)} (${evidence.spans === totals.spans ? 'all written' : `written ${int(totals.spans)}`}, duplicates ${int(evidence.duplicateSpans)})`,
  );
  line(
    'spans per second',
    `${int(evidence.spans / report.seconds)} (${fixed(totals.bytes / MIB / report.seconds, 1)} MiB/s)`,
  );
  line('peak RSS', `${mib(rss)} (${fixed((rss / totals.bytes) * 100, 1)} % of the file)`);
  line(
    'sampled peaks (reading)',
    `heap used ${mib(report.sampled.heapUsed)}, heap total ${mib(report.sampled.heapTotal)}, array buffers ${mib(report.sampled.arrayBuffers)}`,
  );

  const truth = syntheticTruth(SYNTHETIC_SYSTEM);
  console.log('inferred vs true');
  const frontend = evidence.services.find((s) => s.name === 'frontend');
  for (const [name, rate] of Object.entries(truth.arrivals)) {
    const inferred = frontend?.arrivals[name] ?? Number.NaN;
    // What this sample of a Poisson process gives, so the inference's error shows apart from it.
    const sampled = (totals.requests[name] ?? 0) / totals.arrivalSeconds;
    line(
      `arrivals ${name}`,
      `${fixed(inferred, 3)}/s (true ${rate}/s, ${relative(inferred, rate)}; this sample's ${fixed(sampled, 3)}/s, ${relative(inferred, sampled)})`,
    );
  }
  for (const [name, capacity] of Object.entries(truth.capacities)) {
    const service = evidence.services.find((s) => s.name === name);
    const inferred = service?.capacity.value ?? Number.NaN;
    line(
      `capacity ${name}`,
      `${fixed(inferred, 2)}/s (true ${fixed(capacity, 2)}/s, ${relative(inferred, capacity)}; busy share ${fixed(service?.capacity.busyShare ?? Number.NaN, 3)}, ${service?.capacity.method ?? 'missing'})`,
    );
  }
  for (const [name, attempts] of Object.entries(truth.cartAttemptsPerCall)) {
    const hop = evidence.hops.find((h) => h.callee === 'cart' && h.className === name);
    const inferred = hop === undefined ? Number.NaN : hop.attempts / hop.calls;
    line(
      `cart attempts/call ${name}`,
      `${fixed(inferred, 4)} (true ${fixed(attempts, 4)}, ${relative(inferred, attempts)}; retries at most ${hop?.maxRetries ?? '?'}, limit ${SYNTHETIC_SYSTEM.retryLimit}; calls ${int(hop?.calls ?? 0)} of ${int(totals.cartCalls[name] ?? 0)} written)`,
    );
  }
  line('classes', network.classes.map((c) => `${c.name} (retries ${c.retries})`).join(', '));
  line(
    'entries',
    evidence.services
      .filter((s) => s.entry)
      .map((s) => s.name)
      .join(', '),
  );
  for (const service of network.services) {
    const calls = (service.calls ?? []).map(callText);
    const branches = (service.branches ?? []).map(
      (b) => `${fixed(b.p * 100, 1)} %: ${b.calls.map(callText).join(', ')}`,
    );
    if (calls.length + branches.length === 0) continue;
    line(`calls of ${service.name}`, [...calls, ...branches].join('; '));
  }
  for (const text of truth.callGraph) line('true', text);
} finally {
  if (values.keep) console.log(`kept ${file}`);
  else await rm(file, { force: true });
}
