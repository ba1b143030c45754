/**
 * "The same policy instance gives the same decisions in `retry()` under fake timers and
 * in the simulator". One overloaded service: every rejected attempt in the simulator goes to the
 * hop's `RetryPolicy`; the recorded attempt outcomes are then replayed through the runtime's own
 * executor, `retry()`, under fake timers, with a policy built the same way by the same factory
 * (same options, same seeded random stream; only the clock differs: virtual in the simulator,
 * the faked `Date.now` here). Decisions, the contexts they were taken in and the delays waited
 * must match one for one, in the same global order (so the random draws line up).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BackoffDescription } from '../../../src/model/backoff/BackoffDescription.js';
import type { NetworkModel } from '../../../src/model/network/NetworkModel.js';
import { seededRandom } from '../../../src/model/random.js';
import type { AttemptOutcome } from '../../../src/policy/retry/AttemptOutcome.js';
import type {
  RetryContext,
  RetryDecision,
  RetryPolicy,
  RetryPolicyOptions,
} from '../../../src/policy/retry/RetryPolicy.js';
import { retryPolicy } from '../../../src/policy/retry/RetryPolicy.js';
import { retry } from '../../../src/runtime/retry.js';
import { simulateNetwork } from '../../../src/sim/network/simulateNetwork.js';

/** The policy's own random source, apart from the simulator's (arrivals, service times). */
const POLICY_SEED = 20_261_129;
const POLICY_STREAM = 3;

/** One service, two classes, overloaded (ρ = 1.25 before retries) with little room. */
const ONE_SERVICE: NetworkModel = {
  classes: [
    { name: 'high', retryLimit: 5 },
    { name: 'low', retryLimit: 1 },
  ],
  services: [
    {
      name: 'frontend',
      capacity: 40,
      queue: 3,
      model: 'mixed',
      arrivals: [10, 40],
      retryLimits: [5, 1],
      routes: [],
    },
  ],
};

/** One `decide` call: when (on the policy's clock, ms), what it was asked, what it answered. */
interface Decided {
  readonly atMs: number;
  readonly context: RetryContext;
  readonly decision: RetryDecision;
}

/** The policy with every `decide` reported to `record`; everything else is the policy's own. */
function recording(
  policy: RetryPolicy,
  record: (context: RetryContext, decision: RetryDecision) => void,
): RetryPolicy {
  return {
    ...policy,
    decide(context) {
      const decision = policy.decide(context);
      record({ ...context }, decision);
      return decision;
    },
  };
}

/** The part of a context both callers must agree on. */
function asked(context: RetryContext, firstPreviousDelayMs: number | undefined) {
  return {
    className: context.className,
    retries: context.retries,
    outcome: context.outcome,
    deadlineMs: context.deadlineMs,
    // The simulator hands a decorrelated backoff its base for the first retry; `retry()` omits it
    // and the backoff falls back to the same base.
    previousDelayMs: context.previousDelayMs ?? firstPreviousDelayMs,
  };
}

/** One request's rejected attempts at the hop, in order: attempt j was followed by decisions[j]. */
interface Chain {
  readonly className: string;
  readonly decisions: Decided[];
}

/** What the replayed attempts resolve with: a reply with a status, as an HTTP client's. */
interface Reply {
  readonly status: number;
}
const UNAVAILABLE: Reply = { status: 503 };
const OK: Reply = { status: 200 };
const classify = (reply: Reply): AttemptOutcome =>
  reply.status === 200 ? { kind: 'success' } : { kind: 'status', status: reply.status };

/** Runs the simulator and records every decision of the hop's policy. */
function simulate(backoff: BackoffDescription) {
  const decided: Decided[] = [];
  let handed: RetryPolicyOptions | undefined;
  const result = simulateNetwork(ONE_SERVICE, {
    duration: 3,
    warmup: 0,
    seed: 7,
    backoff,
    retryPolicy: (_service, options) => {
      handed = options;
      // The runtime's factory keeps the simulator's virtual clock; the random is the policy's own.
      const policy = retryPolicy({ ...options, random: seededRandom(POLICY_SEED, POLICY_STREAM) });
      return recording(policy, (context, decision) =>
        decided.push({ atMs: options.clock(), context, decision }),
      );
    },
  });
  if (handed === undefined) throw new Error('the simulator built no policy');
  return { decided, handed, result };
}

/**
 * Groups the decisions into requests. In one service an admitted attempt always succeeds, so a
 * request's retry is rejected (and decided on) the moment it is made: `delayMs` after the
 * decision that scheduled it.
 */
function chains(decided: readonly Decided[]): { chains: Chain[]; order: [number, number][] } {
  const all: Chain[] = [];
  const order: [number, number][] = [];
  /** Requests waiting for a retry, with the time (ms) it is due. */
  const waiting = new Map<number, number>();
  for (const entry of decided) {
    let index: number;
    if (entry.context.retries === 0) {
      index = all.push({ className: entry.context.className, decisions: [] }) - 1;
    } else {
      const due = [...waiting].filter(([, at]) => Math.abs(at - entry.atMs) < 1e-6);
      expect(due, `one request due at ${entry.atMs} ms`).toHaveLength(1);
      index = (due[0] as [number, number])[0];
      waiting.delete(index);
    }
    const chain = all[index] as Chain;
    expect(entry.context.className).toBe(chain.className);
    expect(entry.context.retries).toBe(chain.decisions.length);
    order.push([index, chain.decisions.length]);
    chain.decisions.push(entry);
    if (entry.decision.retry) waiting.set(index, entry.atMs + entry.decision.delayMs);
  }
  return { chains: all, order };
}

/** Lets pending promise callbacks run (the executor's awaits between an outcome and `decide`). */
async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

afterEach(() => {
  vi.useRealTimers();
});

const BACKOFFS: readonly [string, BackoffDescription][] = [
  ['random (mean 100 ms)', { kind: 'random', meanMs: 100 }],
  [
    'exponential with decorrelated jitter',
    { kind: 'exponential', baseMs: 20, maxMs: 1000, jitter: 'decorrelated' },
  ],
];

describe('one policy, two executors: the simulator and retry() under fake timers', () => {
  for (const [label, backoff] of BACKOFFS) {
    it(`gives the same decisions and waits the same delays, backoff ${label}`, async () => {
      const firstPreviousDelayMs = backoff.kind === 'exponential' ? backoff.baseMs : undefined;
      const simulated = simulate(backoff);
      expect(simulated.handed.classes).toMatchObject({ high: { retries: 5 }, low: { retries: 1 } });
      const { chains: requests, order } = chains(simulated.decided);
      // Enough of every kind of decision for the comparison to mean something.
      const decisions = simulated.decided.map((d) => d.decision);
      expect(decisions.filter((d) => d.retry).length).toBeGreaterThan(50);
      expect(decisions.filter((d) => !d.retry && d.reason === 'limit').length).toBeGreaterThan(10);
      expect(requests.some((r) => r.className === 'high' && r.decisions.length > 2)).toBe(true);

      // The simulator waited each decided delay before the retry it scheduled.
      for (const request of requests) {
        request.decisions.forEach((d, j) => {
          const next = request.decisions[j + 1];
          if (next === undefined || !d.decision.retry) return;
          expect(next.atMs - d.atMs).toBeCloseTo(d.decision.delayMs, 6);
        });
      }

      // Replay: every request through retry(), its attempts failing with a 503 exactly where the
      // simulator's did, released in the simulator's order so the policy's draws line up.
      vi.useFakeTimers({ now: 0 });
      const { clock: _virtual, random: _own, ...options } = simulated.handed;
      const replayed: Decided[] = [];
      const policy = recording(
        retryPolicy({ ...options, random: seededRandom(POLICY_SEED, POLICY_STREAM) }),
        (context, decision) => replayed.push({ atMs: Date.now(), context, decision }),
      );
      const gates = new Map<string, () => void>();
      const startedAt = requests.map((): number[] => []);
      const failedAt = requests.map((): number[] => []);
      const replies = requests.map((request, r) =>
        retry(
          ({ attempt }) => {
            (startedAt[r] as number[])[attempt] = Date.now();
            // The attempt after the last retry was admitted (or never made before the end).
            if (attempt >= request.decisions.length) return Promise.resolve(OK);
            return new Promise<Reply>((resolve) => {
              gates.set(`${r}:${attempt}`, () => resolve(UNAVAILABLE));
            });
          },
          { policy, className: request.className, classify },
        ),
      );
      for (const [r, attempt] of order) {
        const key = `${r}:${attempt}`;
        while (!gates.has(key)) {
          expect(vi.getTimerCount(), `attempt ${key} should be coming`).toBeGreaterThan(0);
          await vi.advanceTimersToNextTimerAsync();
          await flushMicrotasks();
        }
        const before = replayed.length;
        (failedAt[r] as number[])[attempt] = Date.now();
        (gates.get(key) as () => void)();
        gates.delete(key);
        await flushMicrotasks();
        expect(replayed, `decision on attempt ${key}`).toHaveLength(before + 1);
      }
      await vi.runAllTimersAsync();
      const final = await Promise.all(replies);

      // The same decisions, asked the same questions, in the same order.
      expect(replayed).toHaveLength(simulated.decided.length);
      simulated.decided.forEach((sim, k) => {
        const run = replayed[k] as Decided;
        expect(run.decision, `decision ${k}`).toEqual(sim.decision);
        expect(asked(run.context, firstPreviousDelayMs), `context ${k}`).toEqual(
          asked(sim.context, firstPreviousDelayMs),
        );
      });
      // retry() waited each decided delay (fake timers count whole milliseconds) and ended each
      // request as the simulator's decisions did: given up with the 503, or through.
      requests.forEach((request, r) => {
        request.decisions.forEach((d, j) => {
          if (!d.decision.retry) return;
          const waited = (startedAt[r]?.[j + 1] as number) - (failedAt[r]?.[j] as number);
          expect(waited, `request ${r}, retry ${j + 1}`).toBe(Math.trunc(d.decision.delayMs));
        });
        const last = request.decisions[request.decisions.length - 1] as Decided;
        expect(final[r]).toBe(last.decision.retry ? OK : UNAVAILABLE);
        expect(startedAt[r]).toHaveLength(request.decisions.length + (last.decision.retry ? 1 : 0));
      });
    });
  }
});
