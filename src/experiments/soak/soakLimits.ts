/**
 * The ceilings the soak holds each sidecar process to (scripts/soak.ts), and why. Descriptors
 * are bounded by construction: a sidecar needs one per connection its peers may hold open (the
 * soak's clients and the other sidecar's pool are all bounded) plus its own; more than that is
 * a leak. RSS has no such bound, so its ceiling is the measured figure with a margin. Pure.
 */
import type { SoakCeilings } from './soakCeilings.js';
import {
  SOAK_CHAIN_SOCKETS,
  SOAK_CLIENT_SOCKETS,
  SOAK_CONCURRENCY,
  SOAK_MESH_CONNECTIONS,
} from './soakConfigs.js';
import { SOAK_KINDS, type SoakSidecar, slowClients } from './soakTraffic.js';

const MIB = 1024 * 1024;

/**
 * Descriptors a sidecar process holds of its own, whatever its load: stdio, the listeners,
 * epoll and event descriptors, the loader's pipes. Measured 26–29 in idle sidecars (`difftry
 * proxy` under tsx); 48 leaves room for what a Node release adds.
 */
export const OWN_DESCRIPTORS = 48;

/** One term of a descriptor ceiling: what holds connections, and how many at most. */
export interface DescriptorTerm {
  readonly what: string;
  readonly count: number;
}

/**
 * The terms of each sidecar's descriptor ceiling: every connection its peers may hold open at
 * once, the connections of its own pools, and {@link OWN_DESCRIPTORS}.
 */
export function descriptorTerms(sidecar: SoakSidecar): DescriptorTerm[] {
  const slow = slowClients(SOAK_KINDS)[sidecar];
  const common: DescriptorTerm[] = [
    { what: 'slow clients', count: slow },
    { what: 'the /healthz check', count: 1 },
    { what: 'pool to the application (c)', count: SOAK_CONCURRENCY },
    { what: 'its own', count: OWN_DESCRIPTORS },
  ];
  if (sidecar === 'edge') {
    return [
      { what: 'clients at the inbound listener', count: SOAK_CLIENT_SOCKETS },
      { what: 'clients at the outbound listener', count: SOAK_CLIENT_SOCKETS },
      { what: "the application's /chain calls", count: SOAK_CHAIN_SOCKETS },
      { what: 'pool to the mesh sidecar', count: SOAK_MESH_CONNECTIONS },
      ...common,
    ];
  }
  return [{ what: "the edge's pool to it", count: SOAK_MESH_CONNECTIONS }, ...common];
}

/** The sum of {@link descriptorTerms}. */
export function descriptorCeiling(sidecar: SoakSidecar): number {
  return descriptorTerms(sidecar).reduce((sum, term) => sum + term.count, 0);
}

/**
 * RSS ceiling of either sidecar. In the calibration runs (0.5 and 2 minutes, three times 10
 * minutes) a `difftry proxy` under tsx measured 116–145 MiB at the baseline and 137–160 MiB at its
 * peak; 256 MiB is about 100 MiB over that peak: a leak of a few hundred bytes per request
 * (≈ 460,000 requests in 10 minutes) would cross it, and no healthy run comes near.
 */
export const RSS_CEILING_BYTES = 256 * MIB;

/**
 * How far above its baseline a sidecar's RSS may stay after settling. V8 keeps the heap it grew
 * under load for a while (it returns pages lazily), so "back to baseline" cannot mean equal:
 * the calibration runs ended between 26 MiB below and 30 MiB above their baselines; 48 MiB allows
 * that, and a leak that kept even half of the ceiling's headroom would fail it.
 */
export const SETTLE_RSS_BYTES = 48 * MIB;

/**
 * How many descriptors above its baseline a sidecar may hold after settling: every connection
 * is closed by then (keep-alive timeouts are 4–5 s; the settle period is 15 s), so any excess is
 * a leak; 4 allows a connection or two in closing.
 */
export const SETTLE_FDS = 4;

/** The ceilings of each sidecar of the soak. */
export const SOAK_CEILINGS: Readonly<Record<SoakSidecar, SoakCeilings>> = Object.freeze({
  edge: Object.freeze({
    rssBytes: RSS_CEILING_BYTES,
    fds: descriptorCeiling('edge'),
    settleRssBytes: SETTLE_RSS_BYTES,
    settleFds: SETTLE_FDS,
  }),
  mesh: Object.freeze({
    rssBytes: RSS_CEILING_BYTES,
    fds: descriptorCeiling('mesh'),
    settleRssBytes: SETTLE_RSS_BYTES,
    settleFds: SETTLE_FDS,
  }),
});

/** Why the ceilings are what they are, for the summary. */
export function ceilingsNote(): string {
  const terms = (sidecar: SoakSidecar) =>
    descriptorTerms(sidecar)
      .map((term) => `${term.count} ${term.what}`)
      .join(' + ');
  return (
    'Why: descriptors are bounded by construction, one per connection a peer may hold open plus ' +
    `the process's own, so more is a leak: edge ${descriptorCeiling('edge')} = ${terms('edge')}; ` +
    `mesh ${descriptorCeiling('mesh')} = ${terms('mesh')}. ` +
    'RSS: in calibration runs (0.5, 2 and three times 10 minutes) the sidecars measured ' +
    `116–145 MiB at the baseline and peaked at 137–160 MiB; the ceiling ${RSS_CEILING_BYTES / MIB} MiB is about ` +
    '100 MiB above that peak. After settling V8 keeps part of the heap it grew (the calibration ' +
    `runs ended −26 to +30 MiB from their baselines), hence +${SETTLE_RSS_BYTES / MIB} MiB; ` +
    `every connection has closed by then (keep-alive timeouts 4–5 s), hence +${SETTLE_FDS} descriptors.`
  );
}
