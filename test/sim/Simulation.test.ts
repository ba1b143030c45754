import { describe, expect, it } from 'vitest';
import { Simulation } from '../../src/sim/engine/Simulation.js';

describe('Simulation', () => {
  it('advances a virtual clock from event to event and dispatches by kind', () => {
    const simulation = new Simulation();
    const log: string[] = [];
    const A = simulation.define((payload) => log.push(`A${payload}@${simulation.now}`));
    const B = simulation.define((payload) => {
      log.push(`B${payload}@${simulation.now}`);
      if (payload < 2) simulation.scheduleIn(0.5, B, payload + 1);
    });
    simulation.schedule(2, A, 1);
    simulation.schedule(1, B, 0);
    expect(simulation.run()).toBe(4);
    expect(log).toEqual(['B0@1', 'B1@1.5', 'A1@2', 'B2@2']);
    expect(simulation.now).toBe(2);
    expect(simulation.eventsProcessed).toBe(4);
    expect(simulation.pending).toBe(0);
  });

  it('runs events at equal times in scheduling order', () => {
    const simulation = new Simulation();
    const seen: number[] = [];
    const kind = simulation.define((payload) => seen.push(payload));
    for (let i = 0; i < 10; i++) simulation.schedule(1, kind, i);
    simulation.run();
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('run(untilTime) stops before later events and moves the clock to untilTime', () => {
    const simulation = new Simulation();
    const kind = simulation.define(() => undefined);
    simulation.schedule(1, kind, 0);
    simulation.schedule(3, kind, 0);
    expect(simulation.run(2)).toBe(1);
    expect(simulation.now).toBe(2);
    expect(simulation.nextEventTime()).toBe(3);
    expect(simulation.step()).toBe(true);
    expect(simulation.now).toBe(3);
    expect(simulation.step()).toBe(false);
  });

  it('stop() ends run after the current event', () => {
    const simulation = new Simulation();
    const kind = simulation.define((payload) => {
      if (payload === 3) simulation.stop();
      simulation.scheduleIn(1, kind, payload + 1);
    });
    simulation.schedule(0, kind, 0);
    simulation.run(100);
    expect(simulation.now).toBe(3);
    expect(simulation.eventsProcessed).toBe(4);
  });

  it('rejects events in the past, NaN times and unknown kinds', () => {
    const simulation = new Simulation();
    const kind = simulation.define(() => undefined);
    simulation.schedule(5, kind, 0);
    simulation.run();
    expect(() => simulation.schedule(4, kind, 0)).toThrow(RangeError);
    expect(() => simulation.schedule(Number.NaN, kind, 0)).toThrow(RangeError);
    expect(() => simulation.schedule(6, kind + 1, 0)).toThrow(RangeError);
  });

  it('reports progress every progressEveryEvents events', () => {
    const reports: [number, number][] = [];
    const simulation = new Simulation({
      progressEveryEvents: 10,
      onProgress: (events, now) => reports.push([events, now]),
    });
    const kind = simulation.define((payload) => {
      if (payload < 34) simulation.scheduleIn(1, kind, payload + 1);
    });
    simulation.schedule(0, kind, 0);
    simulation.run();
    expect(reports).toEqual([
      [10, 9],
      [20, 19],
      [30, 29],
    ]);
    expect(() => new Simulation({ progressEveryEvents: 0 })).toThrow(RangeError);
  });
});
