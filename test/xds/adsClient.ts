import { create, fromBinary, type Message, toBinary } from '@bufbuild/protobuf';
import {
  type ClientDuplexStream,
  credentials,
  makeGenericClientConstructor,
  type ServiceError,
} from '@grpc/grpc-js';
import { envoyMessage } from '../../src/xds/envoyApi.js';

// A raw ADS client for the xDS tests: it sends whatever DiscoveryRequests a test makes up
// (malformed, oversized, NACK floods) on one real gRPC stream and records what comes back.

const ADS_PATH = '/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources';

/** The DiscoveryRequest fields a test sets (camelCase, as @bufbuild/protobuf takes them). */
export interface RawDiscoveryRequest {
  readonly node?: { readonly id: string };
  readonly typeUrl?: string;
  readonly versionInfo?: string;
  readonly resourceNames?: readonly string[];
  readonly responseNonce?: string;
  readonly errorDetail?: { readonly code: number; readonly message: string };
}

/** A DiscoveryResponse, as far as the tests read it. */
export interface RawDiscoveryResponse {
  readonly typeUrl: string;
  readonly versionInfo: string;
  readonly nonce: string;
  readonly resources: readonly { readonly typeUrl: string; readonly value: Uint8Array }[];
}

/** One ADS stream on its own channel. */
export interface AdsStream {
  /** Every response received so far, in order. */
  readonly responses: RawDiscoveryResponse[];
  /** Sends a request. */
  send(request: RawDiscoveryRequest): void;
  /** Sends raw bytes as one request message (not necessarily a valid DiscoveryRequest). */
  sendBytes(bytes: Uint8Array): void;
  /**
   * Resolves with the first response after the `from`th whose type is `typeUrl`, within `ms`;
   * rejects if none came in time or the stream ended without one.
   */
  next(typeUrl: string, from?: number, ms?: number): Promise<RawDiscoveryResponse>;
  /** Resolves with the status the stream ended with (within `ms`), or undefined if still open. */
  ended(ms?: number): Promise<ServiceError | 'ok' | undefined>;
  /** Cancels the stream and closes the channel. */
  close(): void;
}

const requestSchema = () => envoyMessage('envoy.service.discovery.v3.DiscoveryRequest');
const responseSchema = () => envoyMessage('envoy.service.discovery.v3.DiscoveryResponse');

/** Opens an ADS stream to 127.0.0.1:`port`. */
export function adsStream(port: number): AdsStream {
  const request = requestSchema();
  const response = responseSchema();
  const Ads = makeGenericClientConstructor(
    {
      Stream: {
        path: ADS_PATH,
        requestStream: true,
        responseStream: true,
        requestSerialize: (message: Message | Uint8Array) =>
          Buffer.from(message instanceof Uint8Array ? message : toBinary(request, message)),
        requestDeserialize: (bytes: Buffer) => fromBinary(request, bytes),
        responseSerialize: (message: Message) => Buffer.from(toBinary(response, message)),
        responseDeserialize: (bytes: Buffer) => fromBinary(response, bytes),
      },
    },
    'Ads',
  );
  const client = new Ads(`127.0.0.1:${port}`, credentials.createInsecure(), {
    'grpc.max_send_message_length': -1,
    'grpc.max_receive_message_length': -1,
  });
  const stream = (client as unknown as { Stream(): ClientDuplexStream<unknown, unknown> }).Stream();
  const responses: RawDiscoveryResponse[] = [];
  let end: ServiceError | 'ok' | undefined;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of waiters) waiter();
  };
  stream.on('data', (message) => {
    responses.push(message as RawDiscoveryResponse);
    wake();
  });
  stream.on('error', (error: ServiceError) => {
    end = error;
    wake();
  });
  stream.on('end', () => {
    end ??= 'ok';
    wake();
  });
  const until = <T>(found: () => T | undefined, ms: number, what: string): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const check = () => {
        const value = found();
        if (value === undefined) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(value);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`${what} within ${ms} ms`));
      }, ms);
      waiters.add(check);
      check();
    });
  return {
    responses,
    send: (fields) => stream.write(create(request, fields as never)),
    sendBytes: (bytes) => stream.write(bytes),
    next: (typeUrl, from = 0, ms = 10_000) =>
      until<RawDiscoveryResponse | Error>(
        () =>
          responses.slice(from).find((r) => r.typeUrl === typeUrl) ??
          (end === undefined
            ? undefined
            : new Error(`the stream ended before a ${typeUrl} response`)),
        ms,
        `no ${typeUrl} response`,
      ).then((found) => (found instanceof Error ? Promise.reject(found) : found)),
    ended: (ms = 5_000) =>
      until(() => end ?? undefined, ms, 'the stream did not end').catch(() => undefined),
    close: () => {
      stream.on('error', () => {}); // the cancel ends the stream with CANCELLED
      stream.cancel();
      client.close();
    },
  };
}

/** Waits `ms`. */
export const sleep = (ms: number): Promise<void> =>
  new Promise<void>((resolve) => setTimeout(resolve, ms));
