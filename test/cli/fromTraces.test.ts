import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseNetwork } from '../../src/config/parseNetwork.js';
import type { TraceEvidence } from '../../src/traces/infer/TraceEvidence.js';
import { runCli } from './runCli.js';

const fixture = (name: string) => new URL(`../fixtures/traces/${name}`, import.meta.url).pathname;
const SMARTTHINGS = fixture('public/zipkin-smartthings/smartthings-mobile-web-install.json');

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'difftry-from-traces-'));
  dirs.push(dir);
  return dir;
}

async function inferred(...argv: string[]) {
  const { code, stdout, stderr } = await runCli('from-traces', ...argv, '--json');
  expect({ code, stderr }).toStrictEqual({ code: 0, stderr: '' });
  return JSON.parse(stdout) as {
    network: { classes: unknown[]; services: { name: string }[] };
    evidence: TraceEvidence;
  };
}

describe('difftry from-traces', () => {
  it('infers the same network from the same traces in every format', async () => {
    const formats = [
      'checkout.otlp.json',
      'checkout.otlp.jsonl',
      'checkout.jaeger.json',
      'checkout.zipkin.json',
    ];
    const networks: unknown[] = [];
    // One at a time: runCli captures the process's stdout.
    for (const name of formats) {
      networks.push((await inferred(fixture(name), '--name', 'checkout')).network);
    }
    for (const network of networks.slice(1)) expect(network).toStrictEqual(networks[0]);
    expect((networks[0] as { services: { name: string }[] }).services.map((s) => s.name)).toEqual([
      'frontend',
      'cart',
      'payment',
    ]);
  });

  it('writes a file that parses, with a header saying how it was made', async () => {
    const dir = await tempDir();
    const out = join(dir, 'net.yaml');
    const { code, stdout, stderr } = await runCli(
      'from-traces',
      fixture('checkout.otlp.jsonl'),
      '--queue',
      '20',
      '--out',
      out,
    );
    expect({ code, stdout }).toStrictEqual({ code: 0, stdout: '' });
    expect(stderr).toMatch(
      /^difftry: wrote .*net\.yaml \(3 services, 2 classes, from 21 spans\)\n$/,
    );
    const text = await readFile(out, 'utf8');
    expect(text).toMatch(
      /^# Inferred by: difftry from-traces .*checkout\.otlp\.jsonl --queue 20\n/,
    );
    expect(text).toContain('queue m = 20 for every service (--queue)');
    const network = parseNetwork(text, out);
    expect(network.services.every((s) => s.queue === 20)).toBe(true);
    const analyzed = await runCli('analyze', out, '--json');
    expect(analyzed.code).toBe(0);
  });

  it('reads a real system’s traces (Zipkin, SmartThings): the call graph, acyclic', async () => {
    const { network, evidence } = await inferred(SMARTTHINGS, '--window', '0:');
    expect(network.services).toHaveLength(16);
    const calls = new Set(
      (
        network.services as {
          name: string;
          calls?: { to: string }[];
          branches?: { calls: { to: string }[] }[];
        }[]
      ).flatMap((s) =>
        [...(s.calls ?? []), ...(s.branches ?? []).flatMap((b) => b.calls)].map(
          (c) => `${s.name}>${c.to}`,
        ),
      ),
    );
    // Caller → callee pairs the trace shows (client span, then the callee's server span).
    for (const pair of [
      'stLogin>platformapi',
      'platformapi>gizmo',
      'platformapi>bookie',
      'execution>bookie',
      'bookie>account',
      'account>auth',
      'pusher>dove',
    ]) {
      expect(calls).toContain(pair);
    }
    expect(evidence.droppedEdges.length).toBeGreaterThan(0);
    expect(evidence.duplicateSpans).toBe(4);
    const analyzed = await runCli(
      'from-traces',
      SMARTTHINGS,
      '--window',
      '0:',
      '--out',
      join(await tempDir(), 'st.yaml'),
    );
    expect(analyzed.code).toBe(0);
  });

  it('refuses bad input in one line, exit 2, writing nothing', async () => {
    const dir = await tempDir();
    const out = join(dir, 'never.yaml');
    const broken = join(dir, 'broken.jsonl');
    await writeFile(broken, '{"resourceSpans": []}\n{"resourceSpans": [\n');
    const empty = join(dir, 'empty.json');
    await writeFile(empty, '');
    const cases: [string[], RegExp][] = [
      [[broken], /broken\.jsonl: line 2: malformed JSON/],
      [[empty], /empty\.json: no spans$/],
      [[join(dir, 'missing.json')], /missing\.json: cannot read \(ENOENT/],
      [[fixture('checkout.otlp.json'), '--format', 'pcap'], /^--format: expected one of otlp-json/],
      [[fixture('checkout.otlp.json'), '--window', '100:200'], /no entry request in the window/],
      [[fixture('checkout.otlp.json'), '--window', 'soon'], /^--window: expected FROM:TO/],
      [
        [fixture('checkout.otlp.json'), '--capacity', 'cart=fast'],
        /^--capacity: expected SERVICE=N/,
      ],
      [[fixture('checkout.otlp.json'), '--classes', 'gold'], /--classes does not list \(gold\)/],
      [[SMARTTHINGS], /one entry request: no time to measure a rate over; give --window/],
    ];
    for (const [argv, message] of cases) {
      const { code, stdout, stderr } = await runCli('from-traces', ...argv, '--out', out);
      expect({ code, stdout }).toStrictEqual({ code: 2, stdout: '' });
      expect(stderr.split('\n')).toHaveLength(2);
      expect(stderr.replace(/^difftry: /, '').trimEnd()).toMatch(message);
    }
    await expect(access(out)).rejects.toThrow();
  });
});
