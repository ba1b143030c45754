import type { Dispatcher } from 'undici';

/** The headers of an undici request, in any form undici accepts (object, flat array, pairs). */
export type DispatchHeaders = Dispatcher.DispatchOptions['headers'];

/**
 * A request's headers split in one pass, for the undici interceptor: the class header's value and
 * the deadline header's (first value of each, whatever the spelling of their names), and every
 * other header as an object (a name given twice has its values joined in an array).
 */
export class SplitHeaders {
  /** The headers other than the two read, by their names as given; undefined values left out. */
  readonly others: Record<string, string | string[]> = {};
  /** The class header's first value, if any. */
  classValue: string | undefined = undefined;
  /** The deadline header's first value, if any. */
  deadlineValue: string | undefined = undefined;
  readonly #classHeader: string;
  readonly #deadlineHeader: string | undefined;

  /**
   * Splits `headers`, reading `classHeader` and `deadlineHeader` (both lower case).
   * (A loop over each form, not a visitor: the interceptor splits every request's headers.)
   */
  constructor(headers: DispatchHeaders, classHeader: string, deadlineHeader: string | undefined) {
    this.#classHeader = classHeader;
    this.#deadlineHeader = deadlineHeader;
    if (headers === null || headers === undefined) return;
    if (Array.isArray(headers)) {
      for (let i = 0; i + 1 < headers.length; i += 2) {
        const value: unknown = headers[i + 1];
        this.#add(String(headers[i]), Array.isArray(value) ? value.map(String) : String(value));
      }
      return;
    }
    if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
      for (const [name, value] of headers as Iterable<[string, string | string[] | undefined]>) {
        this.#add(name, value);
      }
      return;
    }
    const record = headers as Record<string, string | string[] | undefined>;
    for (const name in record) this.#add(name, record[name]);
  }

  #add(key: string, value: string | string[] | undefined): void {
    const name = key.toLowerCase();
    if (name === this.#classHeader) {
      this.classValue ??= firstValue(value);
      return;
    }
    if (name === this.#deadlineHeader) {
      this.deadlineValue ??= firstValue(value);
      return;
    }
    if (value === undefined) return;
    const previous = this.others[key];
    this.others[key] = previous === undefined ? value : ([] as string[]).concat(previous, value);
  }
}

/** The first value of a header. */
function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
