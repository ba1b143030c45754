import { parseNetwork } from '../../src/config/parseNetwork.js';

/**
 * The network the xDS limit and fuzz tests serve: web calls geo; gold retries twice, bronze
 * never. Two Listeners, one RouteConfiguration, two Clusters, one ClusterLoadAssignment.
 */
export const XDS_TEST_NETWORK = parseNetwork(
  `
classes:
  - { name: gold, retries: 2 }
  - { name: bronze, retries: 0 }
services:
  - { name: web, capacity: 100, queue: 10, arrivals: { gold: 1, bronze: 1 }, calls: [{ to: geo }] }
  - { name: geo, capacity: 100, queue: 10 }
`,
  'net.yaml',
);
