// Envoy's own API for the tests: strict parsing of generated Envoy documents (src/xds/envoyApi.ts).
export { envoyRegistry, parseEnvoy } from '../../../src/xds/envoyApi.js';
