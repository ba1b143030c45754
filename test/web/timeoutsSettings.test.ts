import { describe, expect, it } from 'vitest';
import {
  readTimeoutsSettings,
  TIMEOUTS_DEFAULTS,
  type TimeoutsSettings,
  timeoutsUrlValues,
} from '../../web/src/timeouts/timeoutsSettings.js';

/** A URL's query as the view's `context.url` reads it (the shell's UrlState rules). */
function query(text: string) {
  const params = new URLSearchParams(text);
  return {
    get: (key: string) => params.get(key) ?? undefined,
    number: (key: string, fallback: number) => {
      const value = params.get(key);
      const parsed = value === null || value.trim() === '' ? Number.NaN : Number(value);
      return Number.isFinite(parsed) ? parsed : fallback;
    },
  };
}

/** Settings written to a query by timeoutsUrlValues, as UrlState.set writes them. */
function written(settings: TimeoutsSettings): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(timeoutsUrlValues(settings))) {
    if (value !== undefined) params.set(key, String(value));
  }
  return params.toString();
}

describe('the Timeouts view’s settings in the URL', () => {
  it('are the defaults for an empty query: the example law, the CLI’s depth 4 and cost 0', () => {
    expect(readTimeoutsSettings(query(''))).toEqual(TIMEOUTS_DEFAULTS);
    expect(TIMEOUTS_DEFAULTS.depth).toBe(4);
    expect(TIMEOUTS_DEFAULTS.costSlope).toBe(0);
  });

  it('round-trip: what a link holds is what the view shows', () => {
    const settings: TimeoutsSettings = {
      law: {
        kind: 'mixture',
        medianS: 0.2,
        sigma: 0.6,
        median2S: 1.1,
        sigma2: 0.3,
        slowShare: 0.4,
      },
      tzS: 0.9,
      depth: 3,
      costSlope: 0.05,
      markovTS: 0.25,
      scenario: 'dips',
      strategy: 'rto',
    };
    const text = written(settings);
    expect(text).toBe(
      'law=mixture&median=0.2&sigma=0.6&median2=1.1&sigma2=0.3&slow=0.4&tz=0.9&depth=3&cost=0.05&t=0.25&scenario=dips&strategy=rto',
    );
    expect(readTimeoutsSettings(query(text))).toEqual(settings);
  });

  it('leaves default timeouts and a lognormal’s slow path out of the link', () => {
    const lognormal = {
      ...TIMEOUTS_DEFAULTS,
      law: { ...TIMEOUTS_DEFAULTS.law, kind: 'lognormal' },
    };
    const text = written(lognormal as TimeoutsSettings);
    expect([...new URLSearchParams(text).keys()]).toEqual([
      'law',
      'median',
      'sigma',
      'depth',
      'cost',
      'scenario',
      'strategy',
    ]);
    expect(readTimeoutsSettings(query(text)).law.kind).toBe('lognormal');
  });

  it('clamps numbers into the sliders’ ranges and ignores what it cannot use', () => {
    const settings = readTimeoutsSettings(
      query('law=weibull&median=-1&sigma=9&depth=6.6&cost=x&tz=-2&t=0&scenario=nope&strategy=ai'),
    );
    expect(settings.law.kind).toBe(TIMEOUTS_DEFAULTS.law.kind);
    expect(settings.law.medianS).toBe(0.01);
    expect(settings.law.sigma).toBe(1.5);
    expect(settings.depth).toBe(7);
    expect(settings.costSlope).toBe(TIMEOUTS_DEFAULTS.costSlope);
    expect(settings.tzS).toBeUndefined();
    expect(settings.markovTS).toBeUndefined();
    expect(settings.scenario).toBe(TIMEOUTS_DEFAULTS.scenario);
    expect(settings.strategy).toBe(TIMEOUTS_DEFAULTS.strategy);
  });
});
