import type { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { vi } from 'vitest';
import type { SidecarConfigInput } from '../../src/config/sidecarSchema.js';
import { type SidecarHandle, type SidecarOptions, startSidecar } from '../../src/mesh/index.js';
import { type LoopbackServer, type Responder, startServer } from '../runtime/loopback.js';

// Shared by the sidecar*.test.ts files: real sockets on 127.0.0.1, port 0 only. Every request is
// bounded by an AbortSignal, and every server, sidecar and agent is closed after each test (each
// file runs `afterEach(closeAll)`), so no test can hang the run.

export const TEST_TIMEOUT_MS = 15_000;
export const REQUEST_TIMEOUT_MS = 5_000;
const TOKEN_ENV = { MESH_TOKEN: 'test-token' };
export const classes = [
  { name: 'high', retries: 3 },
  { name: 'low', retries: 1 },
];
const immediate = { kind: 'constant', delayMs: 0 } as const;

const servers: LoopbackServer[] = [];
const sidecars: SidecarHandle[] = [];
const agents: Agent[] = [];

/** Closes every server, sidecar and agent a test started; each file runs it `afterEach`. */
export async function closeAll(): Promise<void> {
  vi.useRealTimers();
  await Promise.all(sidecars.splice(0).map((s) => s.close({ graceMs: 0 })));
  await Promise.all(agents.splice(0).map((a) => a.destroy()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
}

export async function app(respond?: Responder): Promise<LoopbackServer & { origin: string }> {
  const server = await startServer(respond);
  servers.push(server);
  return Object.assign(server, { origin: new URL(server.url).origin });
}

export async function sidecar(
  config: Partial<SidecarConfigInput>,
  options: SidecarOptions = {},
): Promise<SidecarHandle> {
  const started = await startSidecar(
    { service: 'frontend', classes, backoff: immediate, ...config },
    { env: TOKEN_ENV, ...options },
  );
  sidecars.push(started);
  return started;
}

export function outboundTo(url: string, upstream: object = {}): Partial<SidecarConfigInput> {
  return {
    outbound: { listen: '127.0.0.1:0', upstreams: [{ name: 'search', url, ...upstream }] },
  };
}

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/** One request with a fresh keep-alive agent (closed after the test), bounded in time. */
export async function send(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Uint8Array | Readable;
    agent?: Agent;
  } = {},
): Promise<Answer> {
  const agent = options.agent ?? new Agent();
  if (options.agent === undefined) agents.push(agent);
  const res = await request(url, {
    dispatcher: agent,
    method: (options.method ?? 'GET') as 'GET',
    headers: options.headers ?? {},
    body: options.body ?? null,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

export async function metricValue(
  handle: SidecarHandle,
  series: string,
): Promise<number | undefined> {
  const text = await handle.registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(series));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/**
 * Polls `condition` every millisecond. Real sockets, so real time: the REQUEST_TIMEOUT_MS limit
 * only turns a hang into a failure, it claims no speed.
 */
export async function waitFor(condition: () => boolean): Promise<void> {
  const until = performance.now() + REQUEST_TIMEOUT_MS;
  while (!condition()) {
    if (performance.now() > until) throw new Error(`condition not met in ${REQUEST_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}
