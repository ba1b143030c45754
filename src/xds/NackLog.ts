import { InvalidArgumentError } from '../core/InvalidArgumentError.js';

/**
 * Which NACKs of one ADS stream are worth a log line, as decisions: a client that refuses a
 * resource tends to refuse it again and again (each retry, each reconnect of a broken data plane,
 * or a flood on purpose), and one line says all of them. No I/O and no clock of its own: the
 * server asks it about each NACK and at the stream's end, and logs what it answers.
 *
 * A NACK is logged when it is the first of its type on the stream, when its detail differs from
 * the last one logged for its type, or when `intervalMs` has passed since that one; and only while
 * the stream has logged fewer than `linesPerInterval` NACKs in the current interval. Every other
 * NACK is counted, per type; the count is reported with the next NACK of that type logged, and
 * what is left when the stream ends.
 */

/** NACKs counted and not logged. */
export interface NackRepeats {
  readonly typeUrl: string;
  /** How many. */
  readonly count: number;
  /** When the first of them came, ms since the epoch (the clock's). */
  readonly sinceMs: number;
}

/** What to do with one NACK. */
export type NackLogDecision =
  | {
      /** Log it; and first report `repeats`, the NACKs of its type only counted before it. */
      readonly log: true;
      readonly repeats?: NackRepeats;
    }
  | { readonly log: false };

/** Options of {@link NackLog}. */
export interface NackLogOptions {
  /** The time now, ms (injected: tests use fake time). */
  readonly now: () => number;
  /**
   * How long a logged NACK's repeats are only counted, ms.
   * @default 60000
   */
  readonly intervalMs?: number;
  /**
   * NACK lines per interval, whatever their details.
   * @default 5
   */
  readonly linesPerInterval?: number;
}

interface TypeLog {
  /** The detail of the last NACK of this type logged. */
  detail: string;
  loggedAt: number;
  /** NACKs counted since it. */
  count: number;
  sinceMs: number;
}

/**
 * One stream's NACK log decisions. The state is one entry per resource type NACKed (the
 * server asks only about the types it serves), so it stays small whatever the client sends.
 * @example
 * ```ts
 * const log = new NackLog({ now: Date.now });
 * log.onNack(LDS, 'bad listener'); // { log: true }
 * log.onNack(LDS, 'bad listener'); // { log: false } — counted
 * log.onEnd();                     // [{ typeUrl: LDS, count: 1, sinceMs: … }]
 * ```
 */
export class NackLog {
  readonly #now: () => number;
  readonly #intervalMs: number;
  readonly #linesPerInterval: number;
  readonly #types = new Map<string, TypeLog>();
  #windowStart = Number.NEGATIVE_INFINITY;
  #linesInWindow = 0;

  constructor(options: Readonly<NackLogOptions>) {
    const intervalMs = options.intervalMs ?? 60_000;
    const linesPerInterval = options.linesPerInterval ?? 5;
    if (!(intervalMs >= 0 && Number.isFinite(intervalMs))) {
      throw new InvalidArgumentError(
        `intervalMs should be a number ≥ 0, got ${String(intervalMs)}`,
      );
    }
    if (!(Number.isSafeInteger(linesPerInterval) && linesPerInterval >= 1)) {
      throw new InvalidArgumentError(
        `linesPerInterval should be a whole number ≥ 1, got ${String(linesPerInterval)}`,
      );
    }
    this.#now = options.now;
    this.#intervalMs = intervalMs;
    this.#linesPerInterval = linesPerInterval;
  }

  /** Decides about a NACK of `typeUrl` whose `error_detail` message is `detail`. */
  onNack(typeUrl: string, detail: string): NackLogDecision {
    const now = this.#now();
    if (now - this.#windowStart >= this.#intervalMs) {
      this.#windowStart = now;
      this.#linesInWindow = 0;
    }
    const last = this.#types.get(typeUrl);
    const worthALine =
      last === undefined || last.detail !== detail || now - last.loggedAt >= this.#intervalMs;
    if (!worthALine || this.#linesInWindow >= this.#linesPerInterval) {
      if (last === undefined) {
        // Over the stream's budget before any line of this type: count from here.
        this.#types.set(typeUrl, { detail: '', loggedAt: now, count: 1, sinceMs: now });
      } else {
        if (last.count === 0) last.sinceMs = now;
        last.count += 1;
      }
      return { log: false };
    }
    this.#linesInWindow += 1;
    const repeats = last === undefined ? undefined : takeRepeats(typeUrl, last);
    this.#types.set(typeUrl, { detail, loggedAt: now, count: 0, sinceMs: now });
    return repeats === undefined ? { log: true } : { log: true, repeats };
  }

  /** The stream ended: the NACKs counted and not reported yet, per type. */
  onEnd(): NackRepeats[] {
    return [...this.#types].flatMap(([typeUrl, last]) => {
      const repeats = takeRepeats(typeUrl, last);
      return repeats === undefined ? [] : [repeats];
    });
  }
}

function takeRepeats(typeUrl: string, last: TypeLog): NackRepeats | undefined {
  if (last.count === 0) return undefined;
  const repeats = { typeUrl, count: last.count, sinceMs: last.sinceMs };
  last.count = 0;
  return repeats;
}
