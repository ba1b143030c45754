import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWithContext } from '../../src/runtime/context.js';
import {
  type DifftryGrpcInterceptorOptions,
  difftryGrpcInterceptor,
  type RetryEvent,
  retryPolicy,
} from '../../src/runtime/grpc.js';
import { jsonMethod } from './grpcJsonMethod.js';

/** What a test asks the server to do with one call, keyed so each test has its own counter. */
interface Script {
  readonly key: string;
  /** Attempts that fail before one succeeds; default: all fail. */
  readonly failures?: number;
  /** The status of a failing attempt; default UNAVAILABLE. */
  readonly code?: grpc.status;
  /** `grpc-retry-pushback-ms` sent with each failure. */
  readonly pushback?: string;
  /** The first `slowAttempts` attempts answer after this many ms (a per-try timeout test). */
  readonly slowMs?: number;
  readonly slowAttempts?: number;
}

const definition = {
  call: jsonMethod('/difftry.test.Scripted/Call', false, false),
  collect: jsonMethod('/difftry.test.Scripted/Collect', true, false),
  watch: jsonMethod('/difftry.test.Scripted/Watch', false, true),
} satisfies grpc.ServiceDefinition;
const ScriptedClient = grpc.makeGenericClientConstructor(definition, 'Scripted');

/** Per key: the attempts the server saw and the `x-priority` each carried. */
const seen = new Map<string, { attempts: number; classes: (string | undefined)[] }>();

function record(key: string, metadata: grpc.Metadata): number {
  const entry = seen.get(key) ?? { attempts: 0, classes: [] };
  seen.set(key, entry);
  entry.attempts++;
  entry.classes.push(metadata.get('x-priority')[0]?.toString());
  return entry.attempts;
}

/** The scripted answer of attempt `attempt` (1-based): an error status, or null for success. */
function failureOf(script: Script, attempt: number): Partial<grpc.StatusObject> | null {
  if (script.failures !== undefined && attempt > script.failures) return null;
  const metadata = new grpc.Metadata();
  if (script.pushback !== undefined) metadata.set('grpc-retry-pushback-ms', script.pushback);
  return { code: script.code ?? grpc.status.UNAVAILABLE, details: 'scripted failure', metadata };
}

const handlers: grpc.UntypedServiceImplementation = {
  call(
    call: grpc.ServerUnaryCall<Script, unknown>,
    callback: grpc.sendUnaryData<{ attempt: number }>,
  ) {
    const script = call.request;
    const attempt = record(script.key, call.metadata);
    const answer = () => {
      const failure = failureOf(script, attempt);
      if (failure) callback(failure);
      else callback(null, { attempt });
    };
    if (script.slowMs !== undefined && attempt <= (script.slowAttempts ?? 0)) {
      const timer = setTimeout(answer, script.slowMs);
      call.on('cancelled', () => clearTimeout(timer));
    } else answer();
  },
  collect(
    call: grpc.ServerReadableStream<Script & { value: number }, unknown>,
    callback: grpc.sendUnaryData<{ sum: number; count: number }>,
  ) {
    let sum = 0;
    let count = 0;
    let script: Script | undefined;
    let attempt = 0;
    call.on('data', (message: Script & { value: number }) => {
      if (script === undefined) {
        script = message;
        attempt = record(message.key, call.metadata);
      }
      sum += message.value;
      count++;
    });
    call.on('end', () => {
      const failure = script ? failureOf(script, attempt) : null;
      if (failure) callback(failure);
      else callback(null, { sum, count });
    });
  },
  watch(call: grpc.ServerWritableStream<Script, unknown>) {
    const attempt = record(call.request.key, call.metadata);
    const failure = failureOf(call.request, attempt);
    if (failure) {
      // grpc-js sends the status of a stream's 'error' event when the stream ends.
      call.emit('error', failure);
      call.end();
      return;
    }
    call.write({ n: 1 });
    call.write({ n: 2 });
    call.end();
  },
};

let server: grpc.Server;
let address: string;
const clients: grpc.Client[] = [];

beforeAll(async () => {
  server = new grpc.Server();
  server.addService(definition, handlers);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  address = `127.0.0.1:${port}`;
});

afterAll(() => {
  for (const client of clients) client.close();
  server.forceShutdown();
});

const classes = { high: { retries: 5 }, low: { retries: 1 } };
const fastBackoff = { kind: 'constant', delayMs: 1 } as const;

/** A client whose every call goes through the interceptor, with events collected. */
function clientWith(options: Partial<DifftryGrpcInterceptorOptions> = {}) {
  const events: { kind: string; event: RetryEvent }[] = [];
  const interceptor = difftryGrpcInterceptor({
    policy: retryPolicy({ classes, defaultClass: 'low', backoff: fastBackoff }),
    onRetry: (event) => events.push({ kind: 'retry', event }),
    onGiveUp: (event) => events.push({ kind: 'giveUp', event }),
    onSuccess: (event) => events.push({ kind: 'success', event }),
    ...options,
  });
  const client = new ScriptedClient(address, grpc.credentials.createInsecure(), {
    interceptors: [interceptor],
  });
  clients.push(client);
  return { client, events };
}

type Answer = { error: grpc.ServiceError | null; response: unknown };

function unary(
  client: grpc.Client,
  script: Script,
  metadata = new grpc.Metadata(),
  options: grpc.CallOptions = {},
): Promise<Answer> {
  return new Promise((resolve) =>
    (
      client as unknown as {
        call: (
          request: Script,
          metadata: grpc.Metadata,
          options: grpc.CallOptions,
          callback: (error: grpc.ServiceError | null, response: unknown) => void,
        ) => grpc.ClientUnaryCall;
      }
    ).call(script, metadata, options, (error, response) => resolve({ error, response })),
  );
}

function priority(value: string): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set('x-priority', value);
  return metadata;
}

/** Starts a client-streaming call; `done` gets its answer. */
function collect(
  client: grpc.Client,
  metadata: grpc.Metadata,
  done: (answer: Answer) => void,
): grpc.ClientWritableStream<unknown> {
  return (
    client as unknown as {
      collect: (
        metadata: grpc.Metadata,
        callback: (error: grpc.ServiceError | null, response: unknown) => void,
      ) => grpc.ClientWritableStream<unknown>;
    }
  ).collect(metadata, (error, response) => done({ error, response }));
}

let keys = 0;
const nextKey = (name: string) => `${name}-${++keys}`;

describe('difftryGrpcInterceptor, unary calls', () => {
  it('makes k + 1 attempts per class against an always-failing server (high 6, low 2)', async () => {
    const { client, events } = clientWith();
    const high = nextKey('always-high');
    const low = nextKey('always-low');
    const [highAnswer, lowAnswer] = await Promise.all([
      unary(client, { key: high }, priority('high')),
      unary(client, { key: low }, priority('low')),
    ]);
    expect(highAnswer.error?.code).toBe(grpc.status.UNAVAILABLE);
    expect(lowAnswer.error?.code).toBe(grpc.status.UNAVAILABLE);
    expect(seen.get(high)?.attempts).toBe(6);
    expect(seen.get(low)?.attempts).toBe(2);
    const giveUps = events.filter((e) => e.kind === 'giveUp').map((e) => e.event);
    expect(giveUps).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ className: 'high', attempts: 6, reason: 'limit' }),
        expect.objectContaining({ className: 'low', attempts: 2, reason: 'limit' }),
      ]),
    );
    expect(events.filter((e) => e.kind === 'retry')).toHaveLength(5 + 1);
  });

  it('returns the response of the attempt that succeeds after two failures', async () => {
    const { client, events } = clientWith();
    const key = nextKey('third-time');
    const answer = await unary(client, { key, failures: 2 }, priority('high'));
    expect(answer.error).toBeNull();
    expect(answer.response).toEqual({ attempt: 3 });
    expect(seen.get(key)?.attempts).toBe(3);
    expect(events.map((e) => e.kind)).toEqual(['retry', 'retry', 'success']);
  });

  it('retries RESOURCE_EXHAUSTED by default', async () => {
    const { client } = clientWith();
    const key = nextKey('exhausted');
    const answer = await unary(
      client,
      { key, failures: 1, code: grpc.status.RESOURCE_EXHAUSTED },
      priority('low'),
    );
    expect(answer.response).toEqual({ attempt: 2 });
  });

  it('does not retry INVALID_ARGUMENT', async () => {
    const { client, events } = clientWith();
    const key = nextKey('invalid');
    const answer = await unary(
      client,
      { key, code: grpc.status.INVALID_ARGUMENT },
      priority('high'),
    );
    expect(answer.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(answer.error?.details).toBe('scripted failure');
    expect(seen.get(key)?.attempts).toBe(1);
    expect(events.at(-1)?.event.reason).toBe('not-retryable');
  });

  it('stops at once on a negative grpc-retry-pushback-ms', async () => {
    const { client, events } = clientWith();
    const key = nextKey('pushback-stop');
    const answer = await unary(client, { key, pushback: '-1' }, priority('high'));
    expect(answer.error?.code).toBe(grpc.status.UNAVAILABLE);
    expect(answer.error?.metadata.get('grpc-retry-pushback-ms')).toEqual(['-1']);
    expect(seen.get(key)?.attempts).toBe(1);
    expect(events).toEqual([
      { kind: 'giveUp', event: expect.objectContaining({ attempts: 1, reason: 'pushback' }) },
    ]);
  });

  it('waits the pushback the server asks for instead of the backoff', async () => {
    const { client, events } = clientWith();
    const key = nextKey('pushback-wait');
    const answer = await unary(client, { key, failures: 1, pushback: '7' }, priority('high'));
    expect(answer.response).toEqual({ attempt: 2 });
    expect(events[0]).toEqual({ kind: 'retry', event: expect.objectContaining({ delayMs: 7 }) });
  });

  it('sends the class in the metadata: from the call, else the request context, else the default', async () => {
    const { client } = clientWith();
    const key = nextKey('classes');
    await unary(client, { key, failures: 0 }, priority('HIGH'));
    await runWithContext({ className: 'high' }, () => unary(client, { key, failures: 0 }));
    await runWithContext({ className: 'high' }, () =>
      unary(client, { key, failures: 0 }, priority('low')),
    );
    await unary(client, { key, failures: 0 });
    await unary(client, { key, failures: 0 }, priority('platinum'));
    expect(seen.get(key)?.classes).toEqual(['high', 'high', 'low', 'low', 'low']);
  });

  it('gives the context class its own retry limit', async () => {
    const { client } = clientWith();
    const key = nextKey('context-limit');
    await runWithContext({ className: 'high' }, () => unary(client, { key }));
    expect(seen.get(key)?.attempts).toBe(6);
    expect(new Set(seen.get(key)?.classes)).toEqual(new Set(['high']));
  });

  it('does not retry when the backoff would pass the call deadline', async () => {
    const { client, events } = clientWith({
      policy: retryPolicy({ classes, backoff: { kind: 'constant', delayMs: 60_000 } }),
    });
    const key = nextKey('deadline');
    const answer = await unary(client, { key }, priority('high'), {
      deadline: Date.now() + 30_000,
    });
    expect(answer.error?.code).toBe(grpc.status.UNAVAILABLE);
    expect(seen.get(key)?.attempts).toBe(1);
    expect(events.at(-1)?.event.reason).toBe('deadline');
  });

  it('treats an expired per-try deadline as a retryable timeout', async () => {
    const { client, events } = clientWith({
      policy: retryPolicy({ classes, backoff: fastBackoff, timeoutMs: 100 }),
    });
    const key = nextKey('per-try');
    const answer = await unary(
      client,
      { key, failures: 0, slowMs: 5_000, slowAttempts: 1 },
      priority('low'),
    );
    expect(answer.response).toEqual({ attempt: 2 });
    expect(events[0]).toEqual({
      kind: 'retry',
      event: expect.objectContaining({ outcome: { kind: 'timeout' } }),
    });
  });

  it('times each attempt by its timeout strategy and tells it what each took', async () => {
    const observed: string[] = [];
    const asked: number[] = [];
    const { client, events } = clientWith({
      policy: retryPolicy({ classes, backoff: fastBackoff }),
      timeout: {
        next: (attempt) => {
          asked.push(attempt);
          return attempt === 0 ? 80 : 5_000;
        },
        observe: (outcome) => observed.push(outcome),
      },
    });
    const key = nextKey('strategy');
    const answer = await unary(
      client,
      { key, failures: 0, slowMs: 5_000, slowAttempts: 1 },
      priority('low'),
    );
    expect(answer.response).toEqual({ attempt: 2 });
    expect(asked).toEqual([0, 1]);
    expect(observed).toEqual(['timeout', 'success']);
    expect(events.map((e) => e.kind)).toEqual(['retry', 'success']);
  });

  it('sends nothing and gives up on the deadline when it is spent before the call', async () => {
    const { client, events } = clientWith();
    const key = nextKey('spent');
    const answer = await unary(client, { key }, priority('high'), { deadline: Date.now() - 1 });
    expect(answer.error?.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(seen.get(key)).toBeUndefined();
    expect(events).toEqual([
      { kind: 'giveUp', event: expect.objectContaining({ attempts: 0, reason: 'deadline' }) },
    ]);
  });

  it("ends at the request context's deadline when it comes before the call's own", async () => {
    const { client, events } = clientWith();
    const key = nextKey('context-deadline');
    const answer = await runWithContext({ className: 'high', deadlineMs: Date.now() - 1 }, () =>
      unary(client, { key }, priority('high'), { deadline: Date.now() + 30_000 }),
    );
    expect(answer.error?.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(seen.get(key)).toBeUndefined();
    expect(events.at(-1)?.event.reason).toBe('deadline');
  });

  it('ends with CANCELLED, and no further attempt, when cancelled during the backoff', async () => {
    let call: grpc.ClientUnaryCall | undefined;
    const { client } = clientWith({
      policy: retryPolicy({ classes, backoff: { kind: 'constant', delayMs: 60_000 } }),
      onRetry: () => setImmediate(() => call?.cancel()),
    });
    const key = nextKey('cancel');
    const answer = await new Promise<Answer>((resolve) => {
      call = (
        client as unknown as {
          call: (
            request: Script,
            metadata: grpc.Metadata,
            callback: (error: grpc.ServiceError | null, response: unknown) => void,
          ) => grpc.ClientUnaryCall;
        }
      ).call({ key }, priority('high'), (error, response) => resolve({ error, response }));
    });
    expect(answer.error?.code).toBe(grpc.status.CANCELLED);
    expect(seen.get(key)?.attempts).toBe(1);
  });
});

describe('difftryGrpcInterceptor, streaming calls', () => {
  it('replays the buffered messages of a client-streaming call on a retry', async () => {
    const { client } = clientWith();
    const key = nextKey('collect');
    const answer = await new Promise<Answer>((resolve) => {
      const stream = collect(client, priority('high'), resolve);
      for (let value = 1; value <= 4; value++) stream.write({ key, failures: 2, value });
      stream.end();
    });
    expect(answer.error).toBeNull();
    expect(answer.response).toEqual({ sum: 10, count: 4 });
    expect(seen.get(key)?.attempts).toBe(3);
  });

  it('sends every message but retries no more past maxBufferedMessages', async () => {
    const giveUps: RetryEvent[] = [];
    const { client } = clientWith({
      maxBufferedMessages: 2,
      onGiveUp: (event) => giveUps.push(event),
    });
    const send = (key: string, failures: number) =>
      new Promise<Answer>((resolve) => {
        const stream = collect(client, priority('high'), resolve);
        for (let value = 1; value <= 5; value++) stream.write({ key, failures, value });
        stream.end();
      });
    const passing = nextKey('collect-long-ok');
    expect((await send(passing, 0)).response).toEqual({ sum: 15, count: 5 });
    const failing = nextKey('collect-long-failing');
    expect((await send(failing, 2)).error?.code).toBe(grpc.status.UNAVAILABLE);
    expect(seen.get(failing)?.attempts).toBe(1);
    // As for an HTTP body that cannot be sent again: the call's own retry limit.
    expect(giveUps.at(-1)?.reason).toBe('limit');
  });

  it('passes server-streaming calls through with the class, without retries', async () => {
    const { client } = clientWith();
    const watch = (key: string, failures: number) =>
      new Promise<{ messages: unknown[]; code: grpc.status }>((resolve) => {
        const messages: unknown[] = [];
        const stream = (
          client as unknown as {
            watch: (request: Script, metadata: grpc.Metadata) => grpc.ClientReadableStream<unknown>;
          }
        ).watch({ key, failures }, priority('high'));
        stream.on('data', (message) => messages.push(message));
        stream.on('error', () => {});
        stream.on('status', (status: grpc.StatusObject) =>
          resolve({ messages, code: status.code }),
        );
      });
    const ok = nextKey('watch-ok');
    expect(await watch(ok, 0)).toEqual({
      messages: [{ n: 1 }, { n: 2 }],
      code: grpc.status.OK,
    });
    expect(seen.get(ok)?.classes).toEqual(['high']);
    const failing = nextKey('watch-failing');
    expect((await watch(failing, 5)).code).toBe(grpc.status.UNAVAILABLE);
    expect(seen.get(failing)?.attempts).toBe(1);
  });
});

describe('difftryGrpcInterceptor options', () => {
  it('rejects a bad maxBufferedMessages', () => {
    expect(() => difftryGrpcInterceptor({ policy: { classes }, maxBufferedMessages: -1 })).toThrow(
      /maxBufferedMessages should be an integer ≥ 0, got -1/,
    );
  });
});
