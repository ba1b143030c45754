const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
/** IMF-fixdate, obsolete RFC 850 and asctime forms (RFC 9110 §5.6.7). */
const HTTP_DATE = [
  new RegExp(`^${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT$`),
  new RegExp(`^${LONG_DAY}, \\d{2}-${MONTH}-\\d{2} ${TIME} GMT$`),
  new RegExp(`^${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4}$`),
];

/**
 * The delay an HTTP `Retry-After` header asks for, in ms: delay-seconds (`120`) or an HTTP-date
 * (`Wed, 21 Oct 2026 07:28:00 GMT`, measured from `nowMs`, never negative). `undefined` when the
 * header is absent or malformed (the backoff applies then).
 * @see RFC 9110 §10.2.3
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only the three date forms RFC 9110 allows (IMF-fixdate, RFC 850, asctime): Date.parse alone
  // would read "in 5" as a date in 2001 and retry at once.
  const form = HTTP_DATE.findIndex((pattern) => pattern.test(text));
  if (form < 0) return undefined;
  // asctime carries no zone; HTTP dates are always GMT.
  const at = Date.parse(form === 2 ? `${text} GMT` : text);
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : undefined;
}

/**
 * The gRPC server pushback: `grpc-retry-pushback-ms` as a delay in ms, `'stop'` when it says not
 * to retry (a negative or non-integer value), `undefined` when absent.
 * @see gRPC proposal A6 (client retries), "Pushback".
 */
export function parseGrpcPushback(value: string | undefined): number | 'stop' | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  return /^\d+$/.test(text) ? Number(text) : 'stop';
}
