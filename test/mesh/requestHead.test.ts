import { describe, expect, it } from 'vitest';
import { bodyPlan } from '../../src/mesh/requestBody.js';
import { endToEndResponseHeaders, splitRequestHead } from '../../src/mesh/requestHead.js';

const names = {
  classHeader: 'x-priority',
  deadlineHeader: 'x-difftry-deadline-ms',
  peerHeader: 'x-difftry-peer',
};

describe('splitRequestHead', () => {
  it('reads the sidecar headers, drops hop-by-hop ones and those Connection names', () => {
    const head = splitRequestHead(
      [
        'Host',
        'search:80',
        'X-Priority',
        'high',
        'x-priority',
        'low',
        'X-Difftry-Deadline-Ms',
        '250',
        'X-Difftry-Peer',
        'a;t',
        'Connection',
        'keep-alive, X-Hop',
        'X-Hop',
        'gone',
        'Keep-Alive',
        'timeout=5',
        'Transfer-Encoding',
        'chunked',
        'TE',
        'trailers',
        'Expect',
        '100-continue',
        'Upgrade',
        'h2c',
        'Cookie',
        'a=1',
        'cookie',
        'b=2',
        'Content-Type',
        'text/plain',
      ],
      names,
    );
    expect(head).toStrictEqual({
      headers: { cookie: ['a=1', 'b=2'], 'content-type': 'text/plain' },
      count: 15,
      host: 'search:80',
      hostLines: 1,
      classValue: 'high',
      deadlineValue: '250',
      peerValue: 'a;t',
      contentLength: Number.NaN,
      chunked: true,
    });
  });

  it('counts Host lines and keeps the first value', () => {
    const head = splitRequestHead(['Host', 'a', 'host', 'b', 'HOST', ''], names);
    expect({ host: head.host, hostLines: head.hostLines }).toStrictEqual({
      host: 'a',
      hostLines: 3,
    });
    expect(head.headers).toStrictEqual({});
    expect(splitRequestHead([], names).hostLines).toBe(0);
  });

  it('keeps content-length and reads it', () => {
    const head = splitRequestHead(['Content-Length', '12'], names);
    expect(head.headers).toStrictEqual({ 'content-length': '12' });
    expect(head.contentLength).toBe(12);
    expect(head.chunked).toBe(false);
  });
});

describe('endToEndResponseHeaders', () => {
  it('drops hop-by-hop headers and those Connection names', () => {
    expect(
      endToEndResponseHeaders({
        connection: 'keep-alive, x-hop',
        'keep-alive': 'timeout=5',
        'transfer-encoding': 'chunked',
        'x-hop': '1',
        'set-cookie': ['a=1', 'b=2'],
        'content-length': '2',
      }),
    ).toStrictEqual({ 'set-cookie': ['a=1', 'b=2'], 'content-length': '2' });
  });
});

describe('bodyPlan', () => {
  const limits = { replayBytes: 100, maxBytes: 1000 };
  it.each([
    [Number.NaN, false, 'none'],
    [0, false, 'none'],
    [100, false, 'buffer'],
    [101, false, 'stream'],
    [1000, false, 'stream'],
    [1001, false, 'too-large'],
    [Number.NaN, true, 'buffer'],
  ])('content-length %s, chunked %s → %s', (length, chunked, plan) => {
    expect(bodyPlan(length, chunked, limits)).toBe(plan);
  });
});
