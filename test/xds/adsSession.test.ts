import { describe, expect, it } from 'vitest';
import { type AdsRequest, AdsSession, type AdsSnapshot } from '../../src/xds/AdsSession.js';

// The ADS protocol's decisions (xDS v3, state of the world), request by request.

const LDS = 'type.googleapis.com/envoy.config.listener.v3.Listener';
const RDS = 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration';

const snapshot = (version: string): AdsSnapshot<string> => ({
  version,
  resources: new Map([
    [
      LDS,
      new Map([
        ['geo', `L-geo@${version}`],
        ['rate', `L-rate@${version}`],
      ]),
    ],
    [
      RDS,
      new Map([
        ['geo-routes', `R-geo@${version}`],
        ['rate-routes', `R-rate@${version}`],
      ]),
    ],
  ]),
});

const request = (over: Partial<AdsRequest> & Pick<AdsRequest, 'typeUrl'>): AdsRequest => ({
  versionInfo: '',
  resourceNames: [],
  responseNonce: '',
  ...over,
});

describe('AdsSession', () => {
  it('answers a first request, then stays quiet on its ACK', () => {
    const session = new AdsSession(snapshot('1'));
    const first = session.onRequest(request({ typeUrl: RDS, resourceNames: ['geo-routes'] }));
    expect(first).toEqual({
      kind: 'initial',
      responses: [{ typeUrl: RDS, versionInfo: '1', nonce: '1', resources: ['R-geo@1'] }],
    });
    const ack = session.onRequest(
      request({
        typeUrl: RDS,
        resourceNames: ['geo-routes'],
        versionInfo: '1',
        responseNonce: '1',
      }),
    );
    expect(ack).toEqual({ kind: 'ack', responses: [] });
    expect(session.acceptedVersion(RDS)).toBe('1');
  });

  it('reports a NACK and does not send the refused version again', () => {
    const session = new AdsSession(snapshot('1'));
    session.onRequest(request({ typeUrl: RDS, resourceNames: ['geo-routes'] }));
    const nack = session.onRequest(
      request({
        typeUrl: RDS,
        resourceNames: ['geo-routes'],
        responseNonce: '1',
        errorDetail: { code: 3, message: 'bad route' },
      }),
    );
    expect(nack).toEqual({ kind: 'nack', responses: [] });
    expect(session.acceptedVersion(RDS)).toBe('');
    // The next version goes out as usual.
    expect(session.onSnapshot(snapshot('2'))).toEqual([
      { typeUrl: RDS, versionInfo: '2', nonce: '2', resources: ['R-geo@2'] },
    ]);
  });

  it('ignores a request that answers an older response (stale nonce)', () => {
    const session = new AdsSession(snapshot('1'));
    session.onRequest(request({ typeUrl: RDS, resourceNames: ['geo-routes'] }));
    session.onSnapshot(snapshot('2')); // nonce 2
    const stale = session.onRequest(
      request({
        typeUrl: RDS,
        resourceNames: ['rate-routes'],
        versionInfo: '1',
        responseNonce: '1',
      }),
    );
    expect(stale).toEqual({ kind: 'stale', responses: [] });
  });

  it('answers a change of subscription with exactly the names asked for', () => {
    const session = new AdsSession(snapshot('1'));
    session.onRequest(request({ typeUrl: RDS, resourceNames: ['geo-routes'] }));
    const more = session.onRequest(
      request({
        typeUrl: RDS,
        resourceNames: ['geo-routes', 'rate-routes', 'nope'],
        versionInfo: '1',
        responseNonce: '1',
      }),
    );
    expect(more.kind).toBe('subscription');
    expect(more.responses[0]?.resources).toEqual(['R-geo@1', 'R-rate@1']);
  });

  it('reads empty names as every Listener, and as no RouteConfiguration; * as every one', () => {
    const session = new AdsSession(snapshot('1'));
    expect(session.onRequest(request({ typeUrl: LDS })).responses[0]?.resources).toEqual([
      'L-geo@1',
      'L-rate@1',
    ]);
    expect(session.onRequest(request({ typeUrl: RDS })).responses[0]?.resources).toEqual([]);
    const star = new AdsSession(snapshot('1'));
    expect(
      star.onRequest(request({ typeUrl: RDS, resourceNames: ['*'] })).responses[0]?.resources,
    ).toEqual(['R-geo@1', 'R-rate@1']);
  });

  it('pushes a new version of every type the client asked for, with fresh nonces', () => {
    const session = new AdsSession(snapshot('1'));
    session.onRequest(request({ typeUrl: LDS, resourceNames: ['geo'] }));
    session.onRequest(request({ typeUrl: RDS, resourceNames: ['geo-routes'] }));
    expect(session.onSnapshot(snapshot('2'))).toEqual([
      { typeUrl: LDS, versionInfo: '2', nonce: '3', resources: ['L-geo@2'] },
      { typeUrl: RDS, versionInfo: '2', nonce: '4', resources: ['R-geo@2'] },
    ]);
  });
});

describe('AdsSession: what a client can make it hold', () => {
  it('neither answers nor remembers a type it does not serve', () => {
    const session = new AdsSession(snapshot('1'));
    for (let i = 0; i < 1000; i++) {
      const typeUrl = `type.googleapis.com/made.up.v${i}`;
      expect(session.onRequest(request({ typeUrl }))).toEqual({ kind: 'unknown', responses: [] });
      expect(session.acceptedVersion(typeUrl)).toBe('');
    }
    // Nothing of them is pushed with the next version: only the types asked for and served.
    session.onRequest(request({ typeUrl: LDS, resourceNames: ['geo'] }));
    expect(session.onSnapshot(snapshot('2')).map((r) => r.typeUrl)).toEqual([LDS]);
  });

  it('serves the types it is told to, whatever the snapshot holds', () => {
    const session = new AdsSession(snapshot('1'), { servedTypes: [RDS] });
    expect(session.onRequest(request({ typeUrl: LDS })).kind).toBe('unknown');
    expect(session.onRequest(request({ typeUrl: RDS })).kind).toBe('initial');
  });

  it('refuses a request with more than maxResourceNames names, and keeps nothing of it', () => {
    const session = new AdsSession(snapshot('1'), { maxResourceNames: 3 });
    const names = ['a', 'b', 'c', 'd'];
    expect(session.onRequest(request({ typeUrl: RDS, resourceNames: names }))).toEqual({
      kind: 'refused',
      responses: [],
      reason: 'a DiscoveryRequest may name at most 3 resources, got 4',
    });
    expect(session.onSnapshot(snapshot('2'))).toEqual([]);
    expect(
      session.onRequest(request({ typeUrl: RDS, resourceNames: names.slice(0, 3) })).kind,
    ).toBe('initial');
    expect(() => new AdsSession(snapshot('1'), { maxResourceNames: 0 })).toThrow(RangeError);
  });
});
