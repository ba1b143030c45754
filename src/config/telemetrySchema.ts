import { z } from 'zod';
import { described } from './fieldMeta.js';

/** The OTLP protocols the sidecar exports spans with. */
const OTLP_PROTOCOLS = ['http/protobuf'] as const;

const httpUrl = () =>
  described(
    z.string().refine((text) => {
      try {
        const url = new URL(text);
        return url.protocol === 'http:' || url.protocol === 'https:';
      } catch {
        return false;
      }
    }),
    'an http:// or https:// URL',
  );

/**
 * A sidecar's `telemetry`: its spans exported over OTLP to `otlp.endpoint` (a collector's
 * OTLP/HTTP port, `http://collector:4318`; the path `/v1/traces` is added unless given), with
 * `serviceName` as `service.name` (default the sidecar's `service`). docs/mesh.md, "Tracing".
 */
export const telemetrySchema = described(
  z.strictObject({
    otlp: described(
      z.strictObject({
        endpoint: httpUrl(),
        protocol: described(z.enum(OTLP_PROTOCOLS), `one of ${OTLP_PROTOCOLS.join(', ')}`).default(
          'http/protobuf',
        ),
        headers: described(
          z.record(z.string(), z.string()),
          'a mapping from header name to value',
        ).optional(),
      }),
      'otlp: a mapping with endpoint',
    ),
    serviceName: described(z.string().min(1), 'a non-empty string').optional(),
  }),
  'telemetry: a mapping with otlp',
);

/** A sidecar's parsed `telemetry`. */
export type TelemetryConfig = z.output<typeof telemetrySchema>;

/** The URL spans are posted to: the endpoint, with `/v1/traces` unless it names a path. */
export function otlpTracesUrl(endpoint: string): string {
  const url = new URL(endpoint);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/v1/traces';
  return url.href;
}
