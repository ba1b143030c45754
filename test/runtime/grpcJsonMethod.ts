import type * as grpc from '@grpc/grpc-js';

/** JSON on the wire, for the tests' gRPC services (no protobuf needed). */
const json = {
  serialize: (value: unknown) => Buffer.from(JSON.stringify(value)),
  deserialize: (bytes: Buffer) => JSON.parse(bytes.toString()),
};

/** A gRPC method of the tests' services at `path`, its messages JSON. */
export function jsonMethod(
  path: string,
  requestStream = false,
  responseStream = false,
): grpc.MethodDefinition<unknown, unknown> {
  return {
    path,
    requestStream,
    responseStream,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  };
}
