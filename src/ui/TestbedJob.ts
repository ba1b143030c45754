import { z } from 'zod';

/**
 * A testbed run the page may start (`POST /api/testbed`): `run` is `difftry testbed run` on
 * hotelReservation (one measured point: every class's rejection beside the prediction), `fig5`
 * is `difftry testbed fig5 --quick` (three γ_low points × DiffTry and uniform limits). Windows and
 * scale are bounded so that a page cannot start a run of hours.
 */
export const testbedJobRequestSchema = z
  .object({
    kind: z.enum(['run', 'fig5']),
    /** Seconds of load before the window; default 8 (run) or the quick preset's 5. */
    warmupS: z.number().min(0).max(60).optional(),
    /** Seconds of the window; default 30 (run) or the quick preset's 12. */
    durationS: z.number().min(0.2).max(120).optional(),
    /** Rates × scale on the testbed; default 0.5. */
    scale: z.number().min(0.01).max(1).optional(),
    transport: z.enum(['http', 'grpc-xds']).optional(),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31)
      .optional(),
  })
  .strict();

/** What the page asks for, checked. */
export type TestbedJobRequest = z.infer<typeof testbedJobRequestSchema>;

/** One class at one measured point: measured rejection (with its 95 % half-width) and predicted. */
export interface TestbedClassPoint {
  readonly name: string;
  readonly measured: number;
  readonly ci95: number;
  readonly predicted: number;
  /** Median latency of the successful requests, seconds. */
  readonly p50: number;
}

/** What a running job tells the page, as server-sent events (`event: kind`, `data: JSON`). */
export type TestbedEvent =
  | { readonly kind: 'started'; readonly request: TestbedJobRequest; readonly points: number }
  | { readonly kind: 'progress'; readonly fraction: number; readonly label: string }
  | {
      readonly kind: 'point';
      /** γ_low of the point (fig5), or the low class's rate at the entry (run), file's units. */
      readonly x: number;
      /** The retry limits' key, `5/1`, or `file` for a run with the file's limits. */
      readonly k: string;
      readonly classes: readonly TestbedClassPoint[];
    }
  | { readonly kind: 'done'; readonly seconds: number }
  | { readonly kind: 'stopped'; readonly seconds: number }
  | { readonly kind: 'error'; readonly message: string };

/** Runs one job: emits its events, stops early on `signal`. The default runs the real testbed. */
export type TestbedJobRunner = (
  request: TestbedJobRequest,
  context: { readonly signal: AbortSignal; readonly emit: (event: TestbedEvent) => void },
) => Promise<void>;

/**
 * Checks a page's request body (JSON text).
 * @returns the request, or the one-line reason it was refused.
 */
export function parseTestbedJobRequest(
  body: string,
): { ok: true; request: TestbedJobRequest } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { ok: false, error: 'expected a JSON body' };
  }
  const parsed = testbedJobRequestSchema.safeParse(value);
  if (parsed.success) return { ok: true, request: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? '' : `${issue.path.join('.')}: `;
  return { ok: false, error: `${where}${issue?.message ?? 'invalid request'}` };
}
