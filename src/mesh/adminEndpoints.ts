import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { sendPlain } from './responseRelay.js';

/**
 * The sidecar's own two endpoints: `GET /metrics` (Prometheus text from the sidecar's registry)
 * and `GET /healthz` (200 `ok` while serving, 503 `draining` during shutdown). Returns a function
 * that answers a request for either and returns true, or returns false for any other request.
 * The function reads `target` (default `req.url`): at the edge, the normalised target, so that
 * `/x/../metrics` reaches the sidecar's endpoint as it would reach the application's.
 */
export function adminEndpoints(
  registry: Registry,
  draining: () => boolean,
): (req: IncomingMessage, res: ServerResponse, target?: string) => boolean {
  return (req, res, target = req.url ?? '') => {
    if (!isAdminPath(target)) return false;
    const path = target.split('?', 1)[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendPlain(res, 405, `difftry: ${path} answers GET`, { allow: 'GET, HEAD' });
      return true;
    }
    if (path === '/healthz') {
      sendPlain(res, draining() ? 503 : 200, draining() ? 'draining' : 'ok');
      return true;
    }
    registry.metrics().then(
      (text) => {
        if (res.destroyed) return;
        res.writeHead(200, {
          'content-type': registry.contentType,
          'content-length': Buffer.byteLength(text),
        });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => sendPlain(res, 500, `difftry: metrics failed: ${String(error)}`),
    );
    return true;
  };
}

/** Whether a request target is `/metrics` or `/healthz` (with or without a query). */
export function isAdminPath(target: string): boolean {
  return (
    (target.startsWith('/metrics') || target.startsWith('/healthz')) &&
    (target.length === 8 || target.charCodeAt(8) === 63) /* '?' */
  );
}
