import fc from 'fast-check';

// Property tests explore with one fixed seed, so a run of `npm test` is reproducible: a failure
// seen once is seen again, and CI never goes red by chance. Change the seed to explore further.
fc.configureGlobal({ seed: 20261129 });
