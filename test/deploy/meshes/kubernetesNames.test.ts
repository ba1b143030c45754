import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseNetwork } from '../../../src/config/parseNetwork.js';
import { kubernetesName, kubernetesNames } from '../../../src/deploy/kubernetesNames.js';
import { meshPlan } from '../../../src/deploy/meshPlan.js';

// RFC 1035 labels, as Kubernetes checks Service names (apimachinery IsDNS1035Label).
const DNS_1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

describe('kubernetesName', () => {
  it('keeps DNS labels and repairs the rest', () => {
    expect(kubernetesName('frontend')).toBe('frontend');
    expect(kubernetesName('Search_API')).toBe('search-api');
    expect(kubernetesName('9lives')).toBe('s-9lives');
    expect(kubernetesName('--a..b--')).toBe('a-b');
  });

  it('always gives an RFC 1035 label', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 100 }), (name) => {
        const label = kubernetesName(name);
        expect(label.length).toBeLessThanOrEqual(63);
        expect(label).toMatch(DNS_1035);
      }),
    );
  });

  it('refuses two services that would share a name', () => {
    const plan = meshPlan(
      parseNetwork(
        `classes: [{ name: high, retries: 2 }, { name: low, retries: 0 }]
services:
  - { name: Geo, capacity: 5, queue: 5, arrivals: { high: 1 }, calls: [{ to: geo }] }
  - { name: geo, capacity: 5, queue: 5 }
`,
        'clash.yaml',
      ),
    );
    expect(() => kubernetesNames(plan)).toThrow(/"Geo" and "geo" .* "geo"/);
  });
});
