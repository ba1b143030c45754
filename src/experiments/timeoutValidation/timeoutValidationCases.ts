/**
 * The cases of the per-try timeout validation (scripts/validate-timeouts-model.ts,
 * docs/validation-timeouts-model.md): the one-service grid of `TIMEOUT_VALIDATION` (m, k, ρ and
 * T), then the two-level call a → b, hotelReservation's call-graph form, the routing chain a → b,
 * the routing cycle a ⇄ b and hotelReservation's routing form, each over its loads and timeouts
 * (timeoutCases.ts builds the networks); and the target the analysis is held to.
 */
import type { NetworkModel } from '../../model/network/NetworkModel.js';
import {
  hotelCallsWithTimeout,
  hotelRoutingWithTimeout,
  routingChain,
  routingCycle,
  TIMEOUT_VALIDATION,
  timedService,
  twoLevel,
} from './timeoutCases.js';

const {
  queues: QUEUES,
  retries: RETRIES,
  rhos: RHOS,
  timeouts: TIMEOUTS, // mean service times
} = TIMEOUT_VALIDATION;

/** The largest |analysis − simulation| of a class figure, end to end, that counts as agreement. */
export const TARGET = 0.02;
/** A rejection this close to 0 or 1 in both analysis and simulation is a trivial agreement. */
export const TRIVIAL = 0.01;

/** The groups of points: the one service, then the networks. */
export type Group =
  | 'single'
  | 'two-level'
  | 'hotel-calls'
  | 'routing-chain'
  | 'routing-cycle'
  | 'hotel-routing';
/** Each group as the page names it. */
export const GROUP_LABELS: Readonly<Record<Group, string>> = {
  single: 'one service (μ = 100/s), one class',
  'two-level': 'two-level a → b, timeouts on b',
  'hotel-calls': 'hotelReservation, call-graph form, a timeout at every hop',
  'routing-chain': 'routing chain a → b, a timeout at both hops',
  'routing-cycle': 'routing cycle a ⇄ b, a timeout at both hops',
  'hotel-routing': 'hotelReservation, routing form, a timeout at every hop',
};
/** The groups whose every point is listed in its own table (all but the single service). */
export const NETWORK_GROUPS = [
  'two-level',
  'hotel-calls',
  'routing-chain',
  'routing-cycle',
  'hotel-routing',
] as const;
/** The groups, in the page's order. */
export const GROUPS = Object.keys(GROUP_LABELS) as Group[];

/** One point of the validation. */
export interface Case {
  readonly group: Group;
  readonly id: string;
  readonly network: NetworkModel;
  /** Single service: m, k, ρ, x = μT. */
  readonly params: Readonly<Record<string, number>>;
}

/** Every case, in the validation's order, which sets each run's substream. */
export function timeoutValidationCases(): Case[] {
  const cases: Case[] = [];
  for (const queue of QUEUES) {
    for (const retries of RETRIES) {
      for (const rho of RHOS) {
        for (const x of TIMEOUTS) {
          cases.push({
            group: 'single',
            id: `m=${queue} k=${retries} ρ=${rho} T=${x}/μ`,
            network: timedService({ queue, retries, rho, timeoutServiceTimes: x }),
            params: { queue, retries, rho, x },
          });
        }
      }
    }
  }
  for (const queue of [50, 10] as const) {
    for (const rho of [0.5, 0.8, 1.1] as const) {
      for (const timeoutMs of [30, 50, 100] as const) {
        cases.push({
          group: 'two-level',
          id: `a→b m_b=${queue} ρ_b=${rho} T_b=${timeoutMs} ms`,
          network: twoLevel({ rho, timeoutMs, queue }),
          params: { queue, rho, timeoutMs },
        });
      }
    }
  }
  for (const gammaLow of [50, 93, 150, 250] as const) {
    for (const timeoutMs of [100, 250, 500] as const) {
      cases.push({
        group: 'hotel-calls',
        id: `hotel-calls γlow=${gammaLow} T=${timeoutMs} ms`,
        network: hotelCallsWithTimeout(gammaLow, timeoutMs),
        params: { gammaLow, timeoutMs, rho0: (50 + gammaLow) / 143 },
      });
    }
  }

  for (const queue of [50, 10] as const) {
    for (const rho of [0.5, 0.8, 1.1] as const) {
      for (const timeoutMs of [30, 50, 100] as const) {
        cases.push({
          group: 'routing-chain',
          id: `a→b routes m_b=${queue} ρ_b=${rho} T=${timeoutMs} ms`,
          network: routingChain({ rho, timeoutMs, queue }),
          params: { queue, rho, timeoutMs },
        });
      }
    }
  }
  for (const queue of [50, 10] as const) {
    for (const rho of [0.5, 0.8, 1.1] as const) {
      for (const timeoutMs of [30, 50, 100] as const) {
        cases.push({
          group: 'routing-cycle',
          id: `a⇄b routes m=${queue} ρ_a=${rho} T=${timeoutMs} ms`,
          network: routingCycle({ rho, timeoutMs, queue }),
          params: { queue, rho, timeoutMs },
        });
      }
    }
  }
  for (const gammaLow of [50, 93, 150, 250] as const) {
    for (const timeoutMs of [100, 250, 500] as const) {
      cases.push({
        group: 'hotel-routing',
        id: `hotel γlow=${gammaLow} T=${timeoutMs} ms`,
        network: hotelRoutingWithTimeout(gammaLow, timeoutMs),
        params: { gammaLow, timeoutMs, rho0: (50 + gammaLow) / 143 },
      });
    }
  }
  return cases;
}
