/** `difftryGrpcInterceptor` on a grpc-js client, against a scripted grpc-js server. */
import type { Http2Session } from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { difftryGrpcInterceptor } from '../../../../src/runtime/grpc.js';
import { jsonMethod } from '../../../runtime/grpcJsonMethod.js';
import {
  aborter,
  budgetOf,
  checkAbort,
  collect,
  type Harness,
  policyOf,
  runKey,
} from './harness.js';
import { type NormalizedEvent, type Scenario, type Step, stepOf } from './scripts.js';

const definition = {
  call: jsonMethod('/difftry.conformance.Scripted/Call'),
} satisfies grpc.ServiceDefinition;
const ScriptedClient = grpc.makeGenericClientConstructor(definition, 'Scripted');

interface Request {
  readonly key: string;
}

const scripts = new Map<string, { steps: readonly Step[]; seen: number }>();

/**
 * The HTTP/2 session of a server call. grpc-js keeps it private (the call's interceptor chain
 * holds the stream), so it is looked for a few levels down.
 */
function sessionOf(call: object): Http2Session | undefined {
  const queue: unknown[] = [call];
  for (let depth = 0; depth < 4 && queue.length > 0; depth++) {
    for (const item of queue.splice(0)) {
      if (item === null || typeof item !== 'object') continue;
      const stream = (item as { stream?: { session?: Http2Session } }).stream;
      if (stream?.session !== undefined) return stream.session;
      for (const name of ['call', 'nextCall']) queue.push((item as Record<string, unknown>)[name]);
    }
  }
  return undefined;
}

const handlers: grpc.UntypedServiceImplementation = {
  call(call: grpc.ServerUnaryCall<Request, unknown>, callback: grpc.sendUnaryData<unknown>) {
    const entry = scripts.get(call.request.key);
    if (entry === undefined) {
      callback({ code: grpc.status.INVALID_ARGUMENT, details: 'unknown script' });
      return;
    }
    const step = stepOf(entry.steps, entry.seen++);
    switch (step.kind) {
      case 'success':
        callback(null, { ok: true });
        return;
      case 'unavailable': {
        const metadata = new grpc.Metadata();
        if (step.pushbackMs !== undefined) {
          metadata.set('grpc-retry-pushback-ms', String(step.pushbackMs));
        }
        callback({ code: grpc.status.UNAVAILABLE, details: 'scripted', metadata });
        return;
      }
      case 'reset': {
        const session = sessionOf(call);
        if (session === undefined) throw new Error('grpcHarness: no HTTP/2 session to drop');
        session.destroy();
        return;
      }
      case 'hang':
        return; // the client's per-try deadline ends it
    }
  },
};

let server: grpc.Server | undefined;
let address = '';

export async function setup(): Promise<void> {
  server = new grpc.Server();
  server.addService(definition, handlers);
  const bound = server;
  const port = await new Promise<number>((resolve, reject) =>
    bound.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, p) =>
      error ? reject(error) : resolve(p),
    ),
  );
  address = `127.0.0.1:${port}`;
}

export async function teardown(): Promise<void> {
  server?.forceShutdown();
  server = undefined;
}

type UnaryMethod = (
  request: Request,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: (error: grpc.ServiceError | null) => void,
) => grpc.ClientUnaryCall;

export async function run(scenario: Scenario): Promise<NormalizedEvent[]> {
  if (server === undefined) throw new Error('grpcHarness: setup() first');
  const key = runKey('grpc', scenario);
  scripts.set(key, { steps: scenario.steps, seen: 0 });
  const budget = budgetOf(scenario);
  let call: grpc.ClientUnaryCall | undefined;
  const abort = aborter(scenario, budget, () => call?.cancel());
  const { events, listeners } = collect(abort.trigger);
  const client = new ScriptedClient(address, grpc.credentials.createInsecure(), {
    interceptors: [difftryGrpcInterceptor({ policy: policyOf(scenario, budget), ...listeners })],
  });
  try {
    const metadata = new grpc.Metadata();
    metadata.set('x-priority', 'high');
    // Only the scenario's own deadline: any other would reach the engine as the call's.
    const options: grpc.CallOptions =
      scenario.deadlineMs === undefined ? {} : { deadline: Date.now() + scenario.deadlineMs };
    const code = await new Promise<grpc.status>((resolve) => {
      call = (client as unknown as { call: UnaryMethod }).call(
        { key },
        metadata,
        options,
        (error) => resolve(error === null ? grpc.status.OK : error.code),
      );
    });
    await checkAbort(scenario, code === grpc.status.CANCELLED ? 'cancelled' : 'answered', abort);
  } finally {
    client.close();
  }
  return events;
}

export const grpcHarness: Harness = {
  name: 'difftryGrpcInterceptor',
  transport: 'grpc',
  setup,
  teardown,
  run,
};
