import { describe, expect, it } from 'vitest';
import { newtonKrylov } from '../../../src/model/numeric/newtonKrylov.js';

describe('newtonKrylov', () => {
  it('finds the root of a coupled nonlinear system', () => {
    // F_i(x) = x_i³ + x_i + (x_{i−1} + x_{i+1}) / 4 − c_i, with c chosen so that x* is the root.
    const n = 50;
    const root = Float64Array.from({ length: n }, (_, i) => Math.sin(i + 1));
    const at = (x: Float64Array, i: number) => (i >= 0 && i < n ? (x[i] as number) : 0);
    const c = Float64Array.from(
      { length: n },
      (_, i) => at(root, i) ** 3 + at(root, i) + (at(root, i - 1) + at(root, i + 1)) / 4,
    );
    const x = new Float64Array(n);
    const result = newtonKrylov(
      x,
      (v, out) => {
        for (let i = 0; i < n; i++)
          out[i] = at(v, i) ** 3 + at(v, i) + (at(v, i - 1) + at(v, i + 1)) / 4 - (c[i] as number);
      },
      { tolerance: 1e-12 },
    );
    expect(result.converged).toBe(true);
    expect(result.residual).toBeLessThanOrEqual(1e-12);
    for (let i = 0; i < n; i++)
      expect(Math.abs((x[i] as number) - (root[i] as number))).toBeLessThan(1e-11);
  });

  it('needs as many Krylov vectors as there are slow directions', () => {
    // The fixed point of x ↦ x − Λ(x − x*) with 120 rates Λ spread from 1e-4 to 1 (a sub-graph
    // near its fold moves its own coordinate this slowly): F = −Λ(x − x*). Each Newton step
    // builds its Krylov space afresh, so a space too small to hold the slow directions cuts the
    // residual by a fixed share a step and Newton converges only linearly: 371 evaluations with
    // 100 vectors, 1,594 with 30.
    const n = 120;
    const rates = Float64Array.from({ length: n }, (_, i) => 1e-4 ** (i / (n - 1)));
    const root = Float64Array.from({ length: n }, (_, i) => Math.cos(i));
    const residual = (v: Float64Array, out: Float64Array) => {
      for (let i = 0; i < n; i++)
        out[i] = -(rates[i] as number) * ((v[i] as number) - (root[i] as number));
    };
    const solve = (restart: number) =>
      newtonKrylov(new Float64Array(n), residual, {
        tolerance: 1e-12,
        maxEvaluations: 800,
        restart,
      });
    const wide = solve(100);
    const narrow = solve(30);
    expect(wide.converged).toBe(true);
    expect(narrow.converged).toBe(false);
    expect(narrow.residual).toBeGreaterThan(1e-9);
  });
});
