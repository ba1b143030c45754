/**
 * The soak's bookkeeping of requests (scripts/soak.ts): every request sent gets a ticket, every
 * ticket is settled by exactly one outcome, and whatever was sent but never settled is lost.
 * Pure: no sockets, no clock; the executor sends and settles.
 */

/**
 * How one request ended, as its client saw it:
 * - `status`: a whole response with this status;
 * - `cut`: a response whose headers (with `status`) arrived but whose body was cut short;
 * - `closed`: the connection ended cleanly (FIN) before any response;
 * - `reset`: the connection was reset (ECONNRESET, EPIPE) before any response;
 * - `timeout`: the client gave up after its own timeout;
 * - `error`: any other client error, by its code (ECONNREFUSED, …).
 *
 * A `detail` helps explain an odd outcome in the log; outcomes are counted without it.
 */
export type SoakOutcome = (
  | { readonly type: 'status'; readonly status: number }
  | { readonly type: 'cut'; readonly status: number }
  | { readonly type: 'closed' }
  | { readonly type: 'reset' }
  | { readonly type: 'timeout' }
  | { readonly type: 'error'; readonly code: string }
) & {
  /** What the client knew besides (the error's message, a reused connection); not counted. */
  readonly detail?: string;
};

/**
 * The label an outcome is counted under: `200`, `503`, `cut`, `closed`, `reset`,
 * `client timeout`, `error ECONNREFUSED`. A cut response counts as `cut` whatever its status.
 */
export function outcomeLabel(outcome: SoakOutcome): string {
  switch (outcome.type) {
    case 'status':
      return String(outcome.status);
    case 'cut':
      return 'cut';
    case 'closed':
      return 'closed';
    case 'reset':
      return 'reset';
    case 'timeout':
      return 'client timeout';
    case 'error':
      return `error ${outcome.code}`;
  }
}

/** What the ledger knows of one kind of request. */
export interface KindTally {
  /** Requests sent. */
  readonly sent: number;
  /** Requests settled, by outcome label ({@link outcomeLabel}), most frequent first. */
  readonly outcomes: readonly (readonly [label: string, count: number])[];
  /** Settled requests whose outcome is not among the kind's expected ones. */
  readonly unexpected: number;
  /** Sent and not (yet) settled. */
  readonly pending: number;
}

/** A snapshot of the whole ledger. */
export interface LedgerTally {
  /** Per kind, in the order the kinds were declared. */
  readonly kinds: readonly (readonly [kind: string, tally: KindTally])[];
  readonly sent: number;
  readonly settled: number;
  /** Sent and not settled: in flight while the run goes on, lost once it has drained. */
  readonly pending: number;
  readonly unexpected: number;
  /**
   * Settlements of a ticket already settled, or never issued: a bug of the soak's client, which
   * would otherwise hide a lost request behind another's second outcome. Must be 0.
   */
  readonly duplicates: number;
}

interface KindState {
  readonly expected: ReadonlySet<string>;
  sent: number;
  settled: number;
  unexpected: number;
  readonly outcomes: Map<string, number>;
}

/**
 * Counts requests and outcomes per kind. Each kind declares the outcome labels it expects (a
 * normal request: `200` or the admission's `503`); any other outcome is counted as unexpected.
 * @example
 * ```ts
 * const ledger = new SoakLedger({ 'edge low': ['200', '503'] });
 * const ticket = ledger.send('edge low');
 * ledger.settle(ticket, { type: 'status', status: 200 });
 * ledger.tally().pending; // 0
 * ```
 */
export class SoakLedger {
  readonly #kinds = new Map<string, KindState>();
  /** Ticket → kind of every request sent and not settled. */
  readonly #open = new Map<number, KindState>();
  #nextTicket = 1;
  #duplicates = 0;

  /**
   * @param expected the outcome labels each kind expects, by kind name (the declaration order
   *   is the report's order).
   * @throws RangeError for a kind with no expected outcome.
   */
  constructor(expected: Readonly<Record<string, readonly string[]>>) {
    for (const [kind, labels] of Object.entries(expected)) {
      if (labels.length === 0) {
        throw new RangeError(`kind ${JSON.stringify(kind)} should expect some outcome, got none`);
      }
      this.#kinds.set(kind, {
        expected: new Set(labels),
        sent: 0,
        settled: 0,
        unexpected: 0,
        outcomes: new Map(),
      });
    }
  }

  /**
   * Records a request of `kind` about to be sent; returns its ticket.
   * @throws RangeError for a kind not declared.
   */
  send(kind: string): number {
    const state = this.#kinds.get(kind);
    if (state === undefined) throw new RangeError(`unknown kind ${JSON.stringify(kind)}`);
    state.sent++;
    const ticket = this.#nextTicket++;
    this.#open.set(ticket, state);
    return ticket;
  }

  /**
   * Records how the request of `ticket` ended. A second settlement of the same ticket (or one
   * of a ticket never issued) is counted in `duplicates` and changes nothing else.
   * @returns whether the outcome was one its kind expects (`expected`), not (`unexpected`), or a
   *   `duplicate` settlement.
   */
  settle(ticket: number, outcome: SoakOutcome): 'expected' | 'unexpected' | 'duplicate' {
    const state = this.#open.get(ticket);
    if (state === undefined) {
      this.#duplicates++;
      return 'duplicate';
    }
    this.#open.delete(ticket);
    state.settled++;
    const label = outcomeLabel(outcome);
    state.outcomes.set(label, (state.outcomes.get(label) ?? 0) + 1);
    if (state.expected.has(label)) return 'expected';
    state.unexpected++;
    return 'unexpected';
  }

  /** Requests sent and not settled, now. */
  get pending(): number {
    return this.#open.size;
  }

  /** A snapshot of every count. */
  tally(): LedgerTally {
    let sent = 0;
    let settled = 0;
    let unexpected = 0;
    const kinds = [...this.#kinds].map(([kind, state]) => {
      sent += state.sent;
      settled += state.settled;
      unexpected += state.unexpected;
      const outcomes = [...state.outcomes].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
      const tally: KindTally = {
        sent: state.sent,
        outcomes,
        unexpected: state.unexpected,
        pending: state.sent - state.settled,
      };
      return [kind, tally] as const;
    });
    return {
      kinds,
      sent,
      settled,
      pending: sent - settled,
      unexpected,
      duplicates: this.#duplicates,
    };
  }
}
