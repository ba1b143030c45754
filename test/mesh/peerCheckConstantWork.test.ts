import { timingSafeEqual } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { peerCheck } from '../../src/mesh/trust.js';
import { classHeaderVariant } from '../../src/policy/request/classHeaderVariant.js';

// The peer check must do the same work whatever name it is shown, so its time
// cannot tell which names are trusted. Counted through an injected comparer, never timed.

const peers = ['search', 'geo', 'profile', 'rate'];
const token = 'mesh-token';

/** A peerCheck whose comparisons are recorded: the digests compared, in order. */
function countingCheck() {
  const calls: { presented: Buffer; expected: Buffer }[] = [];
  const check = peerCheck({
    peers,
    token,
    equal: (presented, expected) => {
      calls.push({ presented, expected });
      return timingSafeEqual(presented, expected);
    },
  });
  return { check, calls };
}

describe('peerCheck does the same work for known and unknown names', () => {
  it.each([
    ['the first listed peer', 'search;mesh-token', 'search'],
    ['the last listed peer', 'rate;mesh-token', 'rate'],
    ['a listed peer with a wrong token', 'geo;wrong', undefined],
    ['an unlisted name', 'user;mesh-token', undefined],
    ['a name in another case', 'Search;mesh-token', undefined],
    ['no token', 'search', undefined],
    ['an empty name', ';mesh-token', undefined],
    ['an empty header', '', undefined],
  ])('%s: one 32-byte digest comparison per peer, every peer once', (_what, value, trusted) => {
    const { check, calls } = countingCheck();
    expect(check(value)).toBe(trusted);
    expect(calls).toHaveLength(peers.length);
    for (const { presented, expected } of calls) {
      expect(presented).toHaveLength(32);
      expect(expected).toHaveLength(32);
    }
    // Every peer's expected digest is compared, each once: the walk covers the whole list.
    expect(new Set(calls.map((c) => c.expected.toString('hex'))).size).toBe(peers.length);
  });

  it('compares the same expected digests in the same order for any value', () => {
    const order = (value: string) => {
      const { check, calls } = countingCheck();
      check(value);
      return calls.map((c) => c.expected.toString('hex'));
    };
    const known = order('search;mesh-token');
    expect(order('user;mesh-token')).toStrictEqual(known);
    expect(order('geo;wrong')).toStrictEqual(known);
    expect(order('malformed')).toStrictEqual(known);
  });

  it('counts a repeated peer once', () => {
    const calls: unknown[] = [];
    const check = peerCheck({
      peers: ['a', 'a', 'b'],
      token,
      equal: (x, y) => {
        calls.push(x);
        return timingSafeEqual(x, y);
      },
    });
    expect(check('a;mesh-token')).toBe('a');
    expect(calls).toHaveLength(2);
  });

  it('compares nothing for a missing header', () => {
    const { check, calls } = countingCheck();
    expect(check(undefined)).toBeUndefined();
    expect(calls).toHaveLength(0);
  });
});

describe('classHeaderVariant', () => {
  const spoofs = classHeaderVariant('x-priority');

  it.each(['x-priority', 'X-Priority', 'x_priority', 'X_PRIORITY', 'x-PRIORITY', 'X_Priority'])(
    'accepts %s',
    (name) => {
      expect(spoofs(name)).toBe(true);
    },
  );

  it.each(['x-priority-hint', 'x_priority_', 'xpriority', 'priority', 'x--priority', 'x-prio'])(
    'leaves %s',
    (name) => {
      expect(spoofs(name)).toBe(false);
    },
  );

  it('folds a configured header written with underscores too', () => {
    expect(classHeaderVariant('X_Class')('x-class')).toBe(true);
  });
});
