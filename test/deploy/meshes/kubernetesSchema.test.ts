import { describe, expect, it } from 'vitest';
import { kubernetesProblems } from './kubernetesSchema.js';

// The checker itself must catch what it exists to catch.

const route = (retries: Record<string, unknown>) => ({
  apiVersion: 'networking.istio.io/v1',
  kind: 'VirtualService',
  metadata: { name: 'geo', namespace: 'default' },
  spec: {
    hosts: ['geo'],
    http: [{ retries, route: [{ destination: { host: 'geo' } }] }],
  },
});

describe('kubernetesProblems', () => {
  it('passes a well-formed VirtualService', () => {
    expect(kubernetesProblems(route({ attempts: 2, perTryTimeout: '0.5s' }))).toEqual([]);
  });

  it('reports a misspelt field the compiled schema would let through', () => {
    expect(kubernetesProblems(route({ attempts: 2, retryon: '5xx' }))).toEqual([
      'networking.istio.io/v1/VirtualService: the schema does not know spec.http.0.retries.retryon',
    ]);
  });

  it("reports the schema's own errors and unknown kinds", () => {
    expect(kubernetesProblems(route({ attempts: 1.5 }))[0]).toMatch(/attempts must be integer/);
    expect(kubernetesProblems({ apiVersion: 'v1', kind: 'Pod' })).toEqual(['no schema for v1/Pod']);
  });

  it('checks core objects and Gateway API routes too', () => {
    expect(
      kubernetesProblems({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'x', labels: { app: 'x' } },
        data: { 'a.yaml': 'k: v' },
        extra: true,
      }),
    ).toEqual(['v1/ConfigMap: the schema does not know extra']);
    expect(
      kubernetesProblems({
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'HTTPRoute',
        metadata: { name: 'geo-high' },
        spec: {
          parentRefs: [{ group: '', kind: 'Service', name: 'geo', port: 80 }],
          rules: [{ matches: [{ headers: [{ name: 'x-priority', value: 'high' }] }] }],
        },
      }),
    ).toEqual([]);
  });
});
