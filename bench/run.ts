/**
 * `npm run bench`: every speed figure difftry claims, each beside a named peer measured in the
 * same run. Figures vary with the machine and its load; docs/benchmarks.md records a run.
 */
import { run as runCallGraph } from './callGraph.js';
import { run as runImportTime } from './importTime.js';
import { run as runModel } from './model.js';
import { run as runNetwork } from './network.js';
import { run as runNetworkSimulator } from './networkSimulator.js';
import { run as runRetry } from './retry.js';
import { run as runSidecar } from './sidecar.js';
import { run as runSimulator } from './simulator.js';
import { run as runTimeouts } from './timeouts.js';
import { run as runUi } from './ui.js';
import { run as runUniqueness } from './uniqueness.js';

console.log(`difftry benchmarks — node ${process.version}, ${process.platform}/${process.arch}`);
await runModel();
await runNetwork();
await runCallGraph();
await runSimulator();
await runNetworkSimulator();
await runUniqueness();
await runRetry();
await runTimeouts();
await runSidecar();
await runImportTime();
await runUi();
