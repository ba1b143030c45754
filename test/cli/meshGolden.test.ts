import { describe, expect, it } from 'vitest';
import { meshEnvoyCommand } from '../../src/cli/meshEnvoyCommand.js';
import { meshGatewayApiCommand } from '../../src/cli/meshGatewayApiCommand.js';
import { meshIstioCommand } from '../../src/cli/meshIstioCommand.js';
import { meshK8sCommand } from '../../src/cli/meshK8sCommand.js';
import { meshLinkerdCommand } from '../../src/cli/meshLinkerdCommand.js';

// Golden files: what each `difftry mesh` generator prints for one small network, byte for byte.
// A change to any generator shows here as a diff to review; after reviewing it, re-create them
// with `npx vitest run test/cli/meshGolden.test.ts -u`.

const file = 'test/cli/golden/shop.yaml';

describe('difftry mesh: golden files', () => {
  it.each([
    ['envoy', () => meshEnvoyCommand({ file })],
    ['istio', () => meshIstioCommand({ file, namespace: 'shop' })],
    ['linkerd', () => meshLinkerdCommand({ file, namespace: 'shop' })],
    ['gateway-api', () => meshGatewayApiCommand({ file, namespace: 'shop' })],
    [
      'k8s',
      () =>
        meshK8sCommand({
          file,
          namespace: 'shop',
          appImage: 'registry.example/shop/{service}:1.0',
          proxyImage: 'difftry/proxy:0.1.0',
        }),
    ],
  ] as const)('mesh %s', async (mesh, run) => {
    const text = await run();
    // Twice the same: nothing depends on time, order of a map or the machine.
    expect(await run()).toBe(text);
    // Every object written out: no YAML anchors or aliases (&a1, *a1).
    expect(text).not.toMatch(/(^|\s)[&*]a\d+(\s|$)/m);
    await expect(text).toMatchFileSnapshot(`golden/shop.${mesh}.yaml`);
  });
});
