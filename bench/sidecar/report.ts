/** The sidecar bench's report (bench/sidecar.ts): its two blocks of rows, from what was measured. */

import { percent } from '../../src/report/numberFormat.js';
import { report } from '../harness.js';
import type { SidecarBuild } from './compiledSidecar.js';
import type { ClosedLoopRecord, OpenLoopRecord } from './load.js';
import {
  CONCURRENCY,
  RATE,
  ROUND_MS,
  ROUNDS,
  TARGET_ADDED_P50_US,
  TARGET_ADDED_P50_VS_RELAY,
  TARGET_THROUGHPUT_VS_PROXY,
  THROUGHPUT_ROUND_MS,
  WARMUP_MS,
} from './settings.js';

const us = (value: number): string => `${Math.round(value).toLocaleString('en-US')} µs`;
const signedUs = (value: number): string => `${value < 0 ? '−' : '+'}${us(Math.abs(value))}`;
const perSecond = (value: number): string => `${Math.round(value).toLocaleString('en-US')} req/s`;

/** A ratio of added latencies, or why there is none (a peer adding nothing measurable). */
function addedRatio(sidecar: number, peer: number, peerName = 'http-proxy'): string {
  return peer > 10 ? `${(sidecar / peer).toFixed(2)}×` : `n/a (${peerName} adds ≤ 10 µs)`;
}

export function reportLatency(records: Map<string, OpenLoopRecord>, build: SidecarBuild): void {
  for (const [name, record] of records) {
    if (record.failures > 0) {
      throw new Error(`${name}: ${record.failures} of ${record.requests} requests failed`);
    }
  }
  const get = (name: string) => records.get(name) as OpenLoopRecord;
  const at = (name: string, percentile: number) =>
    get(name).fromIntended.getValueAtPercentile(percentile);
  const line = (label: string, name: string): [string, string] => {
    const sent = get(name).fromSent;
    return [
      label,
      `p50 ${us(at(name, 50))}, p99 ${us(at(name, 99))}  (send → answer: p50 ${us(
        sent.getValueAtPercentile(50),
      )}, p99 ${us(sent.getValueAtPercentile(99))})`,
    ];
  };
  const added = (name: string, percentile: number) =>
    at(name, percentile) - at('direct', percentile);
  const sidecarP50 = added('sidecar', 50);
  const proxyP50 = added('http-proxy', 50);
  const relayP50 = added('tcp-relay', 50);
  const verdict = (met: boolean) => (met ? 'met' : 'not met');
  const cpu = (name: string) => get(name).cpuMicros / get(name).requests;
  const lateness = get('direct').lateness;
  report(
    `Sidecar hop at ${RATE.toLocaleString('en-US')} requests/s, open loop (${ROUNDS} × ${ROUND_MS / 1000} s per path in alternating rounds after ${WARMUP_MS / 1000} s warm-up; latency from the intended send; the sidecar ${build === 'compiled' ? 'compiled to JavaScript' : 'run from source through tsx'})`,
    [
      line('direct (undici → upstream)', 'direct'),
      line('difftry sidecar', 'sidecar'),
      line('peer: http-proxy', 'http-proxy'),
      line('floor: bare TCP relay (no HTTP)', 'tcp-relay'),
      [
        'added by the sidecar',
        `p50 ${signedUs(sidecarP50)}, p99 ${signedUs(added('sidecar', 99))}`,
      ],
      [
        'added by http-proxy',
        `p50 ${signedUs(proxyP50)}, p99 ${signedUs(added('http-proxy', 99))}`,
      ],
      [
        'added by the bare TCP relay',
        `p50 ${signedUs(relayP50)}, p99 ${signedUs(added('tcp-relay', 99))}`,
      ],
      [
        'ratio sidecar-added / http-proxy-added',
        `p50 ${addedRatio(sidecarP50, proxyP50)}, p99 ${addedRatio(
          added('sidecar', 99),
          added('http-proxy', 99),
        )}`,
      ],
      [
        'ratio sidecar-added / bare-relay-added',
        `p50 ${addedRatio(sidecarP50, relayP50, 'the relay')}, p99 ${addedRatio(
          added('sidecar', 99),
          added('tcp-relay', 99),
          'the relay',
        )}`,
      ],
      ["target: sidecar-added p50 ≤ http-proxy's", verdict(sidecarP50 <= proxyP50)],
      [
        `target: sidecar-added p50 ≤ ${TARGET_ADDED_P50_VS_RELAY}× the bare relay's`,
        verdict(sidecarP50 <= TARGET_ADDED_P50_VS_RELAY * relayP50),
      ],
      [
        `target: sidecar-added p50 ≤ ${TARGET_ADDED_P50_US} µs`,
        `${verdict(sidecarP50 <= TARGET_ADDED_P50_US)} (the bare relay's hop alone adds ${signedUs(relayP50)}: ${
          relayP50 <= TARGET_ADDED_P50_US
            ? 'within the target'
            : 'over the target before any HTTP is parsed'
        })`,
      ],
      [
        'CPU of the proxy process per request',
        `sidecar ${us(cpu('sidecar'))}, http-proxy ${us(cpu('http-proxy'))} (${(
          cpu('sidecar') / cpu('http-proxy')
        ).toFixed(2)}×), bare relay ${us(cpu('tcp-relay'))}`,
      ],
      [
        'pacer: send behind its schedule',
        `p50 ${us(lateness.getValueAtPercentile(50))}, p99 ${us(lateness.getValueAtPercentile(99))} (every path alike)`,
      ],
    ],
  );
}

export function reportThroughput(records: Map<string, ClosedLoopRecord>, pinned: boolean): void {
  for (const [name, record] of records) {
    if (record.failures > 0) {
      throw new Error(`${name}: ${record.failures} requests failed under load`);
    }
  }
  const get = (name: string) => records.get(name) as ClosedLoopRecord;
  const rate = (name: string) => get(name).completed / get(name).seconds;
  const share = (name: string, micros: number) => micros / 1e6 / get(name).cpuSeconds;
  /** Requests per second of the proxy's own CPU time: what it passes with a core all its own. */
  const perCore = (name: string) => rate(name) / share(name, get(name).proxyCpuMicros);
  const proxyLine = (label: string, name: string): [string, string] => [
    label,
    `${perSecond(rate(name))}, its process at ${percent(share(name, get(name).proxyCpuMicros), 0)} of a core → ${perSecond(perCore(name))} per core of its CPU time`,
  ];
  const loadGenerator = (name: string) =>
    percent(share(name, get(name).clientCpuMicros + get(name).upstreamCpuMicros), 0);
  report(
    `Sidecar throughput, closed loop (${CONCURRENCY} concurrent requests on ${CONCURRENCY} keep-alive connections, 2 × ${THROUGHPUT_ROUND_MS / 1000} s per proxy; ${
      pinned
        ? 'the proxy pinned to CPU 1, the client and the upstream to CPU 0'
        : 'not pinned: client, upstream and proxy share the CPUs'
    })`,
    [
      ['reference: direct (undici → upstream)', perSecond(rate('direct'))],
      proxyLine('difftry sidecar', 'sidecar'),
      proxyLine('peer: http-proxy', 'http-proxy'),
      [
        'ratio sidecar / http-proxy',
        `${(rate('sidecar') / rate('http-proxy')).toFixed(2)}× measured, ${(
          perCore('sidecar') / perCore('http-proxy')
        ).toFixed(2)}× per core`,
      ],
      [
        `target: sidecar ≥ ${TARGET_THROUGHPUT_VS_PROXY}× http-proxy (measured)`,
        rate('sidecar') >= TARGET_THROUGHPUT_VS_PROXY * rate('http-proxy') ? 'met' : 'not met',
      ],
      [
        `client + upstream CPU (${pinned ? 'CPU 0' : 'of a core'})`,
        `direct ${loadGenerator('direct')}, sidecar ${loadGenerator('sidecar')}, http-proxy ${loadGenerator('http-proxy')}`,
      ],
    ],
  );
}
