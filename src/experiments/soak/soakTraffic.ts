/**
 * The soak's traffic mix (scripts/soak.ts): normal high and low requests at about ten times each
 * sidecar's admission capacity, requests to faulty application paths, and slow clients. Each
 * kind says where it goes, how it is sent and which outcomes it may have; anything else is an
 * unexpected outcome. Pure data: the executor sends it.
 */
import { SOAK_ADMISSION_CAPACITY_PER_SECOND } from './soakConfigs.js';

/**
 * Where a kind is sent: the edge sidecar's inbound listener (as a client outside), the edge
 * sidecar's outbound listener (as the application calling its upstream `backend`, the mesh
 * sidecar), or the mesh sidecar's inbound listener directly (as a stranger inside the network).
 */
export type SoakTarget = 'edge-inbound' | 'edge-outbound' | 'mesh-inbound';

/** A sidecar whose admission a kind's requests reach. */
export type SoakSidecar = 'edge' | 'mesh';

/** How a kind's requests are sent. */
export type SoakShape =
  /** An ordinary request (node:http, keep-alive), sent open-loop at `ratePerSecond`. */
  | { readonly type: 'request'; readonly ratePerSecond: number }
  /**
   * A slowloris: the request line, then one byte of a header every `byteIntervalMs`, never
   * ending the head; `lanes` such clients at once, each starting again after its outcome.
   */
  | { readonly type: 'slow-headers'; readonly lanes: number; readonly byteIntervalMs: number }
  /** A whole head declaring `bodyBytes`, then one body byte every `byteIntervalMs`; `lanes` at once. */
  | {
      readonly type: 'slow-body';
      readonly lanes: number;
      readonly byteIntervalMs: number;
      readonly bodyBytes: number;
    };

/** One kind of request of the soak. */
export interface SoakKind {
  /** Its name in the report: `edge low`. */
  readonly name: string;
  /** What it stands for, in a few words. */
  readonly description: string;
  readonly target: SoakTarget;
  /** The admissions it goes through (for the offered load of each sidecar). */
  readonly reaches: readonly SoakSidecar[];
  readonly method: 'GET' | 'POST';
  /** Request target at `target`. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly shape: SoakShape;
  /** When the client gives up, ms (beyond every bound the sidecars should apply). */
  readonly clientTimeoutMs: number;
  /** The outcome labels (see `outcomeLabel`) this kind may end with. */
  readonly expected: readonly string[];
  /** Normal traffic (no fault, no slow client): its 200s are the goodput. */
  readonly normal: boolean;
}

/** The API key the edge classes high (the soak sets it in `DIFFTRY_SOAK_API_KEYS`). */
export const SOAK_API_KEY = 'soak-key-1';

/** A lane's pause between one slow client's outcome and the next one's start, ms. */
export const SLOW_LANE_PAUSE_MS = 1_000;

/** Client timeout of ordinary requests: 5× the edge's 4 s deadline, far past any answer due. */
const REQUEST_TIMEOUT_MS = 20_000;
/** Client timeout of slow clients: twice the sidecars' 30 s whole-request bound. */
const SLOW_TIMEOUT_MS = 60_000;

const request = (ratePerSecond: number): SoakShape => ({ type: 'request', ratePerSecond });
const slowHeaders = (lanes: number): SoakShape => ({
  type: 'slow-headers',
  lanes,
  byteIntervalMs: 2_000,
});
const slowBody = (lanes: number): SoakShape => ({
  type: 'slow-body',
  lanes,
  byteIntervalMs: 3_000,
  bodyBytes: 100_000,
});

/** Normal traffic ends with an answer of the application or a rejection by admission. */
const NORMAL = ['200', '503'];
/** Through the mesh hop the edge's per-try timeout or deadline may also answer 504. */
const THROUGH_MESH = ['200', '503', '504'];
/**
 * A slow client is cut by the listener's timeouts with 408 (docs/mesh.md, Timeouts: "the client
 * gets 408 and the connection is closed", a bare close only once a response has started, which
 * never happens to these). A trickled body is received before admission, holding only an upload
 * place (docs/mesh.md, Admission), so it too gets 408 at `requestTimeoutMs`, or 503 at once when
 * the gate is already full as it arrives (refused before its body is read) or the upload places
 * are. A close without an answer is unexpected.
 */
const SLOW_HEAD = ['408'];
const SLOW_BODY = ['408', '503'];

/**
 * The soak's traffic: per sidecar about 10 × its admission capacity of first attempts (see
 * {@link offeredPerSecond}), of which faulty paths are a few percent, plus slow clients.
 */
export const SOAK_KINDS: readonly SoakKind[] = Object.freeze([
  kind('edge low', 'client, default class', 'edge-inbound', ['edge'], '/work', {}, request(230)),
  kind(
    'edge high (path)',
    'client, /premium → high',
    'edge-inbound',
    ['edge'],
    '/premium/work',
    {},
    request(80),
  ),
  kind(
    'edge high (key)',
    'client, API key → high',
    'edge-inbound',
    ['edge'],
    '/work',
    { 'x-api-key': SOAK_API_KEY },
    request(40),
  ),
  kind(
    'edge chain',
    'client; the app calls the mesh',
    'edge-inbound',
    ['edge', 'mesh'],
    '/chain',
    {},
    request(30),
    THROUGH_MESH,
  ),
  kind('edge hang', 'app never answers', 'edge-inbound', ['edge'], '/fault/hang', {}, request(1), [
    '504',
    '503',
  ]),
  kind(
    'edge stall',
    'app stalls mid-body',
    'edge-inbound',
    ['edge'],
    '/fault/stall',
    {},
    request(1),
    ['cut', '503'],
  ),
  kind(
    'edge reset',
    'app resets the connection',
    'edge-inbound',
    ['edge'],
    '/fault/reset',
    {},
    request(4),
    ['503'],
  ),
  kind('edge 503', 'app answers 503', 'edge-inbound', ['edge'], '/fault/503', {}, request(8), [
    '503',
  ]),
  kind(
    'edge slowloris',
    'a header byte every 2 s',
    'edge-inbound',
    ['edge'],
    '/work',
    {},
    slowHeaders(6),
    SLOW_HEAD,
  ),
  kind(
    'edge slow body',
    'a body byte every 3 s',
    'edge-inbound',
    ['edge'],
    '/upload',
    {},
    slowBody(4),
    SLOW_BODY,
  ),
  kind(
    'mesh high',
    'app → mesh, class high',
    'edge-outbound',
    ['mesh'],
    '/backend/work',
    { 'x-priority': 'high' },
    request(140),
    THROUGH_MESH,
  ),
  kind(
    'mesh low',
    'app → mesh, class low',
    'edge-outbound',
    ['mesh'],
    '/backend/work',
    { 'x-priority': 'low' },
    request(220),
    THROUGH_MESH,
  ),
  kind(
    'mesh hang',
    'app never answers',
    'edge-outbound',
    ['mesh'],
    '/backend/fault/hang',
    {},
    request(1),
    // Its retries after a per-try timeout may meet a full mesh admission, whose 503 is the last word.
    ['504', '503'],
  ),
  kind(
    'mesh stall',
    'app stalls mid-body',
    'edge-outbound',
    ['mesh'],
    '/backend/fault/stall',
    {},
    request(1),
    ['cut', '503', '504'],
  ),
  kind(
    'mesh reset',
    'app resets the connection',
    'edge-outbound',
    ['mesh'],
    '/backend/fault/reset',
    {},
    request(4),
    ['503'],
  ),
  kind(
    'mesh 503',
    'app answers 503',
    'edge-outbound',
    ['mesh'],
    '/backend/fault/503',
    {},
    request(8),
    ['503'],
  ),
  kind(
    'mesh slowloris',
    'a header byte every 2 s',
    'mesh-inbound',
    ['mesh'],
    '/work',
    {},
    slowHeaders(2),
    SLOW_HEAD,
  ),
  kind(
    'mesh slow body',
    'a body byte every 3 s',
    'mesh-inbound',
    ['mesh'],
    '/upload',
    {},
    slowBody(2),
    SLOW_BODY,
  ),
]);

function kind(
  name: string,
  description: string,
  target: SoakTarget,
  reaches: readonly SoakSidecar[],
  path: string,
  headers: Readonly<Record<string, string>>,
  shape: SoakShape,
  expected: readonly string[] = NORMAL,
): SoakKind {
  return Object.freeze({
    name,
    description,
    target,
    reaches,
    method: shape.type === 'slow-body' ? 'POST' : 'GET',
    path,
    headers,
    shape,
    clientTimeoutMs: shape.type === 'request' ? REQUEST_TIMEOUT_MS : SLOW_TIMEOUT_MS,
    expected,
    normal: shape.type === 'request' && !path.includes('/fault/'),
  });
}

/** The expected outcome labels by kind name, as `SoakLedger` takes them. */
export function expectedOutcomes(kinds: readonly SoakKind[]): Record<string, readonly string[]> {
  return Object.fromEntries(kinds.map((k) => [k.name, k.expected]));
}

/**
 * The open-loop requests per second that reach `sidecar`'s admission as first attempts (retries
 * at the edge's outbound listener come on top); slow clients are not counted.
 */
export function offeredPerSecond(kinds: readonly SoakKind[], sidecar: SoakSidecar): number {
  let total = 0;
  for (const k of kinds) {
    if (k.shape.type === 'request' && k.reaches.includes(sidecar)) total += k.shape.ratePerSecond;
  }
  return total;
}

/** {@link offeredPerSecond} as a multiple of the admission capacity (c / service time). */
export function overloadFactor(kinds: readonly SoakKind[], sidecar: SoakSidecar): number {
  return offeredPerSecond(kinds, sidecar) / SOAK_ADMISSION_CAPACITY_PER_SECOND;
}

/**
 * Normal requests answered 200 per second of load, for each sidecar they went through: the
 * goodput that slow clients and faulty paths must not starve.
 * @param okByKind the `200` count of each kind, by name.
 * @param loadMs how long the load ran, ms.
 */
export function goodputPerSecond(
  kinds: readonly SoakKind[],
  okByKind: ReadonlyMap<string, number>,
  loadMs: number,
): Record<SoakSidecar, number> {
  const goodput: Record<SoakSidecar, number> = { edge: 0, mesh: 0 };
  for (const k of kinds) {
    if (!k.normal) continue;
    for (const sidecar of k.reaches) goodput[sidecar] += okByKind.get(k.name) ?? 0;
  }
  const seconds = loadMs / 1000;
  return { edge: goodput.edge / seconds, mesh: goodput.mesh / seconds };
}

/** Slow clients at once at each sidecar's listeners. */
export function slowClients(kinds: readonly SoakKind[]): Record<SoakSidecar, number> {
  const lanes: Record<SoakSidecar, number> = { edge: 0, mesh: 0 };
  for (const k of kinds) {
    if (k.shape.type === 'request') continue;
    for (const sidecar of k.reaches) lanes[sidecar] += k.shape.lanes;
  }
  return lanes;
}
