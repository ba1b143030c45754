/**
 * Re-creates the single-service validation tables: `npm run validate` (a few minutes).
 *
 * Writes docs/validation-single.md (tables) and docs/validation-single.csv (every figure), from
 * fixed seeds, so the output is the same on every run and machine.
 */
import { writeFileSync } from 'node:fs';
import {
  type BackoffDescription,
  exponentialDistribution,
  hyperexponentialDistribution,
  type ModelName,
  mm1mBlocking,
  mm1mMeanInSystem,
  residualAlpha,
  retryDelayLaw,
  type ServiceTimeDistribution,
  solveService,
} from '../src/model/index.js';
import { replicateSingleService } from '../src/sim/index.js';

const SEED = 20261129;
const csv: string[] = ['section,m,k,rho0,class,source,value,ci95'];
const out: string[] = [];
const started = Date.now();
const log = (text: string) =>
  process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(0)} s] ${text}\n`);
const f = (x: number, d = 4) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');

// ── 1. M/M/1/m: one class, no retries ────────────────────────────────────────────────────────
{
  log('1. M/M/1/m');
  const m = 5;
  const mu = 3;
  out.push('## 1. M/M/1/m: one class, no retries\n');
  out.push(
    `μ = ${mu}, m = ${m}, exponential service; 10 replications × 20,000 s (warm-up 2,000 s), seed ${SEED}. ` +
      'Exact values from the closed forms P_m = (1 − ρ)ρ^m/(1 − ρ^(m+1)) and ' +
      'L = ρ/(1 − ρ) − (m+1)ρ^(m+1)/(1 − ρ^(m+1)).\n',
  );
  out.push(
    '| ρ | P_m exact | P_m simulated ± 95 % CI | within CI | L exact | L simulated ± 95 % CI | within CI |',
  );
  out.push('| ---: | ---: | ---: | :---: | ---: | ---: | :---: |');
  let inside = 0;
  let total = 0;
  for (const rho of [0.5, 0.75, 1, 1.25, 1.5, 2, 2.5]) {
    const r = replicateSingleService(
      {
        capacity: mu,
        queue: m,
        classes: [{ name: 'only', arrivalRate: rho * mu, retryLimit: 0 }],
        duration: 20_000,
        warmup: 2_000,
        seed: SEED,
      },
      10,
    );
    const c = r.classes.only;
    if (!c) throw new Error('missing class');
    const pm = mm1mBlocking(rho, m);
    const l = mm1mMeanInSystem(rho, m);
    const pIn = Math.abs(c.rejection - pm) <= c.rejectionCi95;
    const lIn = Math.abs(r.meanInSystem - l) <= r.meanInSystemCi95;
    inside += Number(pIn) + Number(lIn);
    total += 2;
    out.push(
      `| ${rho} | ${f(pm, 6)} | ${f(c.rejection, 6)} ± ${f(c.rejectionCi95, 6)} | ${pIn ? 'yes' : 'no'} | ${f(l, 5)} | ${f(r.meanInSystem, 5)} ± ${f(r.meanInSystemCi95, 5)} | ${lIn ? 'yes' : 'no'} |`,
    );
    csv.push(`mm1m,${m},0,${rho},only,exact-Pm,${pm},`);
    csv.push(`mm1m,${m},0,${rho},only,sim-Pm,${c.rejection},${c.rejectionCi95}`);
    csv.push(`mm1m,${m},0,${rho},only,exact-L,${l},`);
    csv.push(`mm1m,${m},0,${rho},only,sim-L,${r.meanInSystem},${r.meanInSystemCi95}`);
  }
  out.push(
    `\n${inside} of ${total} simulated figures lie within their 95 % interval of the exact value ` +
      '(about 95 % is what a correct simulator gives).\n',
  );
}

// ── 2. The three φ laws against the simulator, long retry delays ────────────────────────────
const MODELS: readonly ModelName[] = ['fluid', 'mm1m', 'mixed'];
const LIMITS = [
  [5, 1],
  [5, 5],
] as const;
const RHOS = [0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.25, 2.5];
const MU = 143;

function classesAt(rho0: number, k: readonly [number, number], backoff: BackoffDescription) {
  // The published mix: high is 1/6 of the original load, low 5/6 (γ_high = 50, γ_low = 250 at ρ₀ = 2.1).
  return [
    { name: 'high', arrivalRate: (rho0 * MU) / 6, retryLimit: k[0], backoff },
    { name: 'low', arrivalRate: (rho0 * MU * 5) / 6, retryLimit: k[1], backoff },
  ];
}

{
  const backoff: BackoffDescription = { kind: 'random', meanMs: 2000 };
  out.push('## 2. fluid, mm1m and mixed against the simulator (long retry delays)\n');
  out.push(
    `μ = ${MU}, exponential service, retry delay exponential with mean 2 s (≈ 290 mean service times); ` +
      'γ_high : γ_low = 1 : 5 with ρ₀ = Σγ/μ from 0.5 to 2.5; 5 replications × 600 s (warm-up 60 s). ' +
      'Cells are per-class end-to-end rejection; "err" columns are |model − simulation|.\n',
  );
  const worst: Record<string, number> = {};
  for (const m of [5, 50]) {
    for (const k of LIMITS) {
      log(`2. m = ${m}, k = (${k.join(', ')})`);
      out.push(`### m = ${m}, k = (${k.join(', ')})\n`);
      out.push('| ρ₀ | class | simulated ± 95 % CI | fluid | err | mm1m | err | mixed | err |');
      out.push('| ---: | :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
      for (const rho0 of RHOS) {
        const classes = classesAt(rho0, k, backoff);
        const sim = replicateSingleService(
          { capacity: MU, queue: m, classes, duration: 600, warmup: 60, seed: SEED },
          5,
        );
        const predictions = MODELS.map((model) =>
          solveService({ capacity: MU, queue: m, model, classes: classes.map((c) => ({ ...c })) }),
        );
        classes.forEach((c, p) => {
          const s = sim.classes[c.name];
          if (!s) throw new Error('missing class');
          const cells = predictions.map((pr, i) => {
            const predicted = pr.classes[p]?.rejection ?? Number.NaN;
            const err = Math.abs(predicted - s.rejection);
            const key = `${MODELS[i]} m=${m}`;
            worst[key] = Math.max(worst[key] ?? 0, err);
            csv.push(`phi,${m},${k.join('/')},${rho0},${c.name},${MODELS[i]},${predicted},`);
            return `${f(predicted)} | ${f(err)}`;
          });
          csv.push(
            `phi,${m},${k.join('/')},${rho0},${c.name},sim,${s.rejection},${s.rejectionCi95}`,
          );
          out.push(
            `| ${p === 0 ? rho0 : ''} | ${c.name} | ${f(s.rejection)} ± ${f(s.rejectionCi95)} | ${cells.join(' | ')} |`,
          );
        });
      }
      out.push('');
    }
  }
  out.push('Largest |model − simulation| over every ρ₀, k and class:\n');
  out.push('| model | m = 5 | m = 50 |');
  out.push('| :--- | ---: | ---: |');
  for (const model of MODELS) {
    out.push(
      `| ${model} | ${f(worst[`${model} m=5`] ?? Number.NaN)} | ${f(worst[`${model} m=50`] ?? Number.NaN)} |`,
    );
  }
  out.push('');
}

// ── 3. Short retry delays, hyperexponential service: the residual-time correction ──────────
{
  const backoff: BackoffDescription = { kind: 'constant', delayMs: 2 };
  const service: ServiceTimeDistribution = hyperexponentialDistribution(1 / MU, 10);
  out.push('## 3. Short retry delays and highly variable service: the residual-time correction\n');
  out.push(
    `μ = ${MU}, m = 50, hyperexponential service (balanced means, SCV 10), constant retry delay 2 ms ` +
      '(about a third of a mean service time); 5 replications × 600 s. "independent" is the mixed model ' +
      'as in section 2; "residual" adds the correction s_r = (1 − α) + α s, closed either as docs/design.md ' +
      'reads literally (s = φ(ρ), "attempt") or by requiring the rejected fraction of all attempts to be ' +
      'φ(ρ) ("flow", the default; see docs/model.md); α = P(residual ≤ 2 ms) ' +
      `= ${f(residualAlpha(service, retryDelayLaw(backoff, 1)))} for this service (α for exponential ` +
      `service would be ${f(residualAlpha(exponentialDistribution(1 / MU), retryDelayLaw(backoff, 1)))}).\n`,
  );
  out.push(
    '| ρ₀ | k | class | simulated ± 95 % CI | independent | err | residual, attempt closure | err | residual, flow closure | err |',
  );
  out.push('| ---: | :--- | :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  const sums = { independent: 0, attempt: 0, flow: 0 };
  let cells = 0;
  for (const k of LIMITS) {
    for (const rho0 of [0.5, 0.75, 1, 1.5, 2.1]) {
      log(`3. k = (${k.join(', ')}), ρ₀ = ${rho0}`);
      const classes = classesAt(rho0, k, backoff);
      const sim = replicateSingleService(
        {
          capacity: MU,
          queue: 50,
          serviceTime: service,
          classes,
          duration: 600,
          warmup: 60,
          seed: SEED,
        },
        5,
      );
      const corrected = classes.map((c) => ({
        ...c,
        residualAlphas: Array.from({ length: c.retryLimit }, (_, j) =>
          residualAlpha(service, retryDelayLaw(backoff, j + 1)),
        ),
      }));
      const base = { capacity: MU, queue: 50, model: 'mixed' as const };
      const independent = solveService({ ...base, classes });
      const attempt = solveService({ ...base, classes: corrected, residualClosure: 'attempt' });
      const flow = solveService({ ...base, classes: corrected, residualClosure: 'flow' });
      classes.forEach((c, p) => {
        const s = sim.classes[c.name];
        if (!s) throw new Error('missing class');
        const predicted = {
          independent: independent.classes[p]?.rejection ?? Number.NaN,
          attempt: attempt.classes[p]?.rejection ?? Number.NaN,
          flow: flow.classes[p]?.rejection ?? Number.NaN,
        };
        cells++;
        const row = (Object.keys(predicted) as (keyof typeof predicted)[]).map((key) => {
          const err = Math.abs(predicted[key] - s.rejection);
          sums[key] += err;
          csv.push(`residual,50,${k.join('/')},${rho0},${c.name},${key},${predicted[key]},`);
          return `${f(predicted[key])} | ${f(err)}`;
        });
        csv.push(
          `residual,50,${k.join('/')},${rho0},${c.name},sim,${s.rejection},${s.rejectionCi95}`,
        );
        out.push(
          `| ${p === 0 ? rho0 : ''} | ${p === 0 ? `(${k.join(', ')})` : ''} | ${c.name} | ${f(s.rejection)} ± ${f(s.rejectionCi95)} | ${row.join(' | ')} |`,
        );
      });
    }
  }
  out.push(
    `\nMean |error| over the ${cells} cells: independent ${f(sums.independent / cells)}, ` +
      `residual with the attempt closure ${f(sums.attempt / cells)}, residual with the flow closure ${f(sums.flow / cells)}.\n`,
  );
}

const header =
  '# Single-service validation tables\n\n' +
  'Generated by `npm run validate` (scripts/validate-single.ts); do not edit by hand. ' +
  'Every figure is also in `validation-single.csv`. See [validation.md](validation.md) for what they show.\n';
writeFileSync(
  new URL('../docs/validation-single.md', import.meta.url),
  `${header}\n${out.join('\n')}\n`,
);
writeFileSync(new URL('../docs/validation-single.csv', import.meta.url), `${csv.join('\n')}\n`);
log('wrote docs/validation-single.md and docs/validation-single.csv');
