import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dashboardUid, MAX_UID_LENGTH } from '../../../src/deploy/grafana/dashboardUid.js';

/** Grafana's uid alphabet. */
const UID = /^[a-zA-Z0-9_-]+$/;

describe('dashboardUid', () => {
  it('is difftry- and the name when the name is already a uid', () => {
    expect(dashboardUid('hotel-calls')).toBe('difftry-hotel-calls');
    expect(dashboardUid('two_tier')).toBe('difftry-two_tier');
  });

  it('adds a hash of the name when sanitising loses anything, so look-alikes differ', () => {
    const spaced = dashboardUid('Hotel Calls');
    expect(spaced).toMatch(/^difftry-hotel-calls-[0-9a-f]{8}$/);
    expect(spaced).not.toBe(dashboardUid('hotel-calls'));
    expect(spaced).not.toBe(dashboardUid('hotel calls'));
    expect(dashboardUid('')).toMatch(/^difftry-[0-9a-f]{8}$/);
    expect(dashboardUid('ホテル')).toMatch(/^difftry-[0-9a-f]{8}$/);
    const long = 'a-very-long-network-name-that-goes-on-and-on';
    expect(dashboardUid(long)).toMatch(/^difftry-a-very-long-network-nam-[0-9a-f]{8}$/);
    expect(dashboardUid(long)).toHaveLength(MAX_UID_LENGTH);
    expect(dashboardUid(`${long}!`)).not.toBe(dashboardUid(long));
  });

  it('is always a Grafana uid of at most 40 characters, the same every time', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (name) => {
        const uid = dashboardUid(name);
        expect(uid).toMatch(UID);
        expect(uid.length).toBeLessThanOrEqual(MAX_UID_LENGTH);
        expect(uid.startsWith('difftry-')).toBe(true);
        expect(dashboardUid(name)).toBe(uid);
      }),
    );
  });
});
