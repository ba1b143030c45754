// The soak's traffic mix and sidecar configs (src/experiments/soak/soakTraffic.ts,
// soakConfigs.ts): about 10× each sidecar's admission capacity, configs the CLI accepts, and the
// outcome bookkeeping of goodput and slow clients.
import { describe, expect, it } from 'vitest';
import { parseSidecarConfig } from '../../src/config/parseSidecarConfig.js';
import {
  EDGE_SERVICE,
  edgeSidecarConfig,
  MESH_SERVICE,
  meshSidecarConfig,
  SOAK_ADMISSION_CAPACITY_PER_SECOND,
  SOAK_CONCURRENCY,
  SOAK_SERVICE_MS,
  SOAK_SYSTEM_CAPACITY,
} from '../../src/experiments/soak/soakConfigs.js';
import {
  expectedOutcomes,
  goodputPerSecond,
  offeredPerSecond,
  overloadFactor,
  SOAK_KINDS,
  slowClients,
} from '../../src/experiments/soak/soakTraffic.js';

describe('the soak’s load', () => {
  it('has capacity c / S = 4 / 0.1 s = 40 requests/s per sidecar', () => {
    expect(SOAK_CONCURRENCY).toBe(4);
    expect(SOAK_SERVICE_MS).toBe(100);
    expect(SOAK_ADMISSION_CAPACITY_PER_SECOND).toBe(40);
  });

  it('offers each sidecar 10× its admission capacity, within 5 %', () => {
    for (const sidecar of ['edge', 'mesh'] as const) {
      expect(overloadFactor(SOAK_KINDS, sidecar)).toBeGreaterThan(9.5);
      expect(overloadFactor(SOAK_KINDS, sidecar)).toBeLessThan(10.5);
    }
    expect(offeredPerSecond(SOAK_KINDS, 'edge')).toBe(394);
  });

  it('mixes in faulty paths (a few percent) and slow clients at both sidecars', () => {
    const faults = SOAK_KINDS.filter((k) => k.path.includes('/fault/'));
    expect(faults.map((k) => k.path.replace(/^\/backend/, '')).sort()).toEqual([
      '/fault/503',
      '/fault/503',
      '/fault/hang',
      '/fault/hang',
      '/fault/reset',
      '/fault/reset',
      '/fault/stall',
      '/fault/stall',
    ]);
    const faultRate = offeredPerSecond(faults, 'edge');
    expect(faultRate / offeredPerSecond(SOAK_KINDS, 'edge')).toBeLessThan(0.1);
    expect(faultRate).toBeGreaterThan(0);
    expect(slowClients(SOAK_KINDS)).toEqual({ edge: 10, mesh: 4 });
    for (const shape of ['slow-headers', 'slow-body']) {
      expect(
        SOAK_KINDS.filter((k) => k.shape.type === shape)
          .map((k) => k.target)
          .sort(),
      ).toEqual(['edge-inbound', 'mesh-inbound']);
    }
  });

  it('names each kind once, expects some outcome of each, and 200 of normal ones', () => {
    const names = SOAK_KINDS.map((k) => k.name);
    expect(new Set(names).size).toBe(names.length);
    const expected = expectedOutcomes(SOAK_KINDS);
    for (const k of SOAK_KINDS) {
      expect(expected[k.name]?.length).toBeGreaterThan(0);
      if (k.normal) expect(k.expected).toContain('200');
      // Nothing may end in a reset or a client timeout unnoticed.
      expect(k.expected).not.toContain('reset');
      expect(k.expected).not.toContain('client timeout');
    }
    expect(SOAK_KINDS.filter((k) => k.normal).length).toBe(6);
  });

  it('expects the documented 408 of slow clients, never a bare close', () => {
    for (const k of SOAK_KINDS.filter((kind) => kind.shape.type !== 'request')) {
      expect(k.expected).toContain('408');
      expect(k.expected).not.toContain('closed');
    }
  });

  it('counts the goodput of normal kinds per second at each sidecar they pass', () => {
    const ok = new Map([
      ['edge low', 600],
      ['edge chain', 60],
      ['mesh high', 300],
      ['edge hang', 1000], // not normal: never goodput
    ]);
    expect(goodputPerSecond(SOAK_KINDS, ok, 60_000)).toEqual({ edge: 11, mesh: 6 });
  });
});

describe('the soak’s sidecar configs', () => {
  const app = 'http://127.0.0.1:8080';
  const mesh = 'http://127.0.0.1:9090';

  it('are accepted by the CLI’s schema as the files it reads', () => {
    const edge = parseSidecarConfig(JSON.stringify(edgeSidecarConfig(app, mesh)), 'edge.json');
    expect(edge.service).toBe(EDGE_SERVICE);
    expect(edge.inbound).toMatchObject({
      listen: '127.0.0.1:0',
      app,
      concurrency: SOAK_CONCURRENCY,
      capacity: SOAK_SYSTEM_CAPACITY,
    });
    expect(edge.inbound?.edge?.default).toBe('low');
    expect(edge.outbound?.upstreams).toMatchObject([{ name: MESH_SERVICE, url: mesh, mesh: true }]);
    const backend = parseSidecarConfig(JSON.stringify(meshSidecarConfig(app)), 'mesh.json');
    expect(backend.inbound?.trust?.peers).toEqual([EDGE_SERVICE]);
    expect(backend.identity?.tokenEnv).toBe(edge.identity?.tokenEnv);
  });

  it('listen on loopback ports the system picks, never a fixed one', () => {
    for (const config of [edgeSidecarConfig(app, mesh), meshSidecarConfig(app)]) {
      const listens = [config.inbound?.listen, config.outbound?.listen, config.admin?.listen];
      for (const listen of listens.filter((l) => l !== undefined))
        expect(listen).toBe('127.0.0.1:0');
    }
  });

  it('keep the shipped client timeouts, which the slow clients meet', () => {
    const edge = parseSidecarConfig(JSON.stringify(edgeSidecarConfig(app, mesh)), 'edge.json');
    expect(edge.limits).toMatchObject({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 });
  });
});

describe('the soak’s ceilings', () => {
  it('bound descriptors by the connections peers may hold, plus the process’s own', async () => {
    const { descriptorCeiling, descriptorTerms, OWN_DESCRIPTORS, SOAK_CEILINGS } = await import(
      '../../src/experiments/soak/soakLimits.js'
    );
    // By hand: edge 128 + 128 (two client agents) + 64 (/chain) + 32 (mesh pool) + 10 slow + 1
    // /healthz + 4 (app pool) + 48 own; mesh 32 (edge's pool) + 4 slow + 1 + 4 + 48.
    expect(descriptorCeiling('edge')).toBe(415);
    expect(descriptorCeiling('mesh')).toBe(89);
    expect(SOAK_CEILINGS.mesh.fds).toBe(89);
    expect(descriptorTerms('mesh').at(-1)).toEqual({ what: 'its own', count: OWN_DESCRIPTORS });
    // Ordinary requests go to the edge's two listeners only; the mesh sees the edge's pool.
    const targets = new Set(
      SOAK_KINDS.filter((k) => k.shape.type === 'request').map((k) => k.target),
    );
    expect([...targets].sort()).toEqual(['edge-inbound', 'edge-outbound']);
  });
});
