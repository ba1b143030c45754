/**
 * What the strategies comparison (docs/strategies.md) simulates: every retry strategy of the
 * network simulator, and two references simulated as `difftry` with other limits, each with its
 * label and a line on what it does.
 */

import { NETWORK_STRATEGIES, type NetworkStrategy } from '../../sim/network/strategy.js';
import { type Figure5Limit, figure5Limits } from '../figure5/figure5Sweep.js';

const [DIFFTRY_LIMIT, UNIFORM_LIMIT] = figure5Limits();
/** Retry limits (high, low): DiffTry's; every other strategy gives both classes the first. */
export const RETRIES = (DIFFTRY_LIMIT as Figure5Limit).retries;
export const UNIFORM_RETRIES = (UNIFORM_LIMIT as Figure5Limit).retries;
/**
 * References beside the strategies, simulated as `difftry` with other limits: no retries at all,
 * and DiffTry with the low class never retrying (the limit the class-aware budget approaches).
 */
export const REFERENCES = {
  'difftry-5-0': { high: 5, low: 0 },
  'no-retries': { high: 0, low: 0 },
} as const;
export type Reference = keyof typeof REFERENCES;
export type Subject = NetworkStrategy | Reference;
export const SUBJECTS: readonly Subject[] = [
  ...NETWORK_STRATEGIES,
  ...(Object.keys(REFERENCES) as Reference[]),
];
export const isReference = (subject: Subject): subject is Reference =>
  Object.hasOwn(REFERENCES, subject);

/** Budgets that ignore the class (uniform limits plus one of them). */
export const CLASS_UNAWARE_BUDGETS = [
  'budget-finagle',
  'budget-grpc',
  'budget-envoy',
  'sre-throttle',
] as const satisfies readonly NetworkStrategy[];

export const STRATEGY_INFO: Readonly<
  Record<Subject, { readonly label: string; readonly how: string }>
> = {
  difftry: {
    label: 'DiffTry',
    how: 'per-class limits k = (5, 1) at every hop, no budget',
  },
  uniform: {
    label: 'uniform',
    how: 'k = (5, 5) at every hop, no budget',
  },
  'budget-finagle': {
    label: 'Finagle budget',
    how:
      'k = (5, 5) plus a Finagle/Linkerd ratio budget per hop: ttl 10 s, 20 % of requests, ' +
      'reserve 10 retries/s',
  },
  'budget-grpc': {
    label: 'gRPC throttle',
    how:
      'k = (5, 5) plus gRPC retry throttling per hop: 10 tokens, −1 per failed attempt, +0.1 ' +
      'per success, retries only while tokens > 5',
  },
  'budget-envoy': {
    label: 'Envoy budget',
    how:
      'k = (5, 5) plus an Envoy retry budget per hop: retries in flight ≤ max(3, 20 % of ' +
      'active requests)',
  },
  'sre-throttle': {
    label: 'SRE throttle',
    how:
      'k = (5, 5) plus Google SRE adaptive throttling of retries per hop: K = 2, 2-minute ' +
      'window, a retry refused with probability max(0, (requests − 2·accepts)/(requests + 1))',
  },
  'class-budget': {
    label: 'class-aware budget',
    how:
      'k = (5, 5) plus a class-aware ratio budget per hop (Finagle accounting, as above): ' +
      'the low class may spend at most half of the window’s allowance, the high class all of it',
  },
  'difftry-5-0': {
    label: 'DiffTry (5, 0)',
    how: 'reference: `difftry` with k = (5, 0), the low class never retries',
  },
  'no-retries': {
    label: 'no retries',
    how: 'reference: k = (0, 0), every rejected attempt fails its request',
  },
};
