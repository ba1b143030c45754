/**
 * difftry/model: the analytical DiffTry model, pure math with no I/O.
 * @packageDocumentation
 */
export type { BackoffDescription } from './backoff/BackoffDescription.js';
export { DEFAULT_BACKOFF } from './backoff/BackoffDescription.js';
export {
  type DelayLaw,
  drawRetryDelay,
  retryDelayLaw,
} from './backoff/retryDelay.js';
export * from './distributions/index.js';
export {
  type RetryQueueClass,
  type RetryQueueClassFigures,
  type RetryQueueFigures,
  type RetryQueueService,
  solveRetryQueue,
} from './exact/retryQueueChain.js';
export type { AnalysisProgress } from './network/AnalysisProgress.js';
export {
  type AnalyzeOptions,
  analyzeNetwork,
} from './network/analyzeNetwork.js';
export {
  type AnalyzedSweepPoint,
  type AnalyzeSweepOptions,
  analyzeSweep,
  type SweptAnalysis,
} from './network/analyzeSweep.js';
export type { BranchesAlongSweep, SweptBranches } from './network/branchSweep.js';
export {
  type CallEquilibria,
  type CallEquilibrium,
  callEquilibria,
} from './network/callEquilibria.js';
export {
  type ChosenLaw,
  chooseLaw,
  isLawChoice,
  LAW_CHOICES,
  type LawChoice,
} from './network/lawChoice.js';
export type {
  NetworkBranch,
  NetworkCall,
  NetworkClass,
  NetworkModel,
  NetworkRoute,
  NetworkService,
} from './network/NetworkModel.js';
export type {
  EndToEndAnalysis,
  Equilibrium,
  FailedShareSwing,
  NetworkLoad,
  NetworkReport,
  ServiceAnalysis,
  ServiceClassAnalysis,
} from './network/NetworkReport.js';
export { nominalLoads } from './network/nominalLoads.js';
export {
  ANALYSIS_LAWS,
  type AnalysisLaw,
  isAnalysisLaw,
  orbitLawRefusal,
} from './network/orbitLaw.js';
export { type EscapeRatePoint, type RampEscape, rampEscape } from './network/rampEscape.js';
export type { Swing } from './network/relaxCalls.js';
export {
  type RoutingEquilibria,
  type RoutingEquilibriaOptions,
  type RoutingEquilibrium,
  routingEquilibria,
} from './network/routingEquilibria.js';
export { type RunShares, runShares } from './network/runShares.js';
export { type SweptParameter, withSweptValue } from './network/SweptParameter.js';
export { type CallSolution, type CallSolveOptions, solveCalls } from './network/solveCalls.js';
export {
  type RoutingSolution,
  type RoutingSolveOptions,
  solveRouting,
} from './network/solveRouting.js';
export {
  type RoutingStructure,
  routingStructure,
  type UniquenessGuarantee,
} from './network/structure.js';
export {
  type SweepEquilibria,
  type SweepEquilibriaOptions,
  type SweptEquilibria,
  sweepEquilibria,
} from './network/sweepEquilibria.js';
export {
  STORM_REJECTION,
  type SweepRamp,
  type SweepRampOptions,
  sweepRamp,
} from './network/sweepRamp.js';
export {
  routingEquilibriaAt,
  type SweepRoutingEquilibriaOptions,
  sweepRoutingEquilibria,
} from './network/sweepRoutingEquilibria.js';
export type { TimedRoutingSolution } from './network/timedRoutingState.js';
export { uniformLimits } from './network/uniformLimits.js';
export {
  type WindowReading,
  type WindowReadingInput,
  windowReading,
} from './network/windowReading.js';
export {
  type BirthDeathFluctuation,
  birthDeathFluctuation,
  windowAverageVariance,
} from './numeric/birthDeathFluctuation.js';
export {
  fluidPhi,
  MODEL_NAMES,
  type ModelName,
  mixedPhi,
  mm1mBlocking,
  mm1mMeanInSystem,
  mm1mPhi,
  type Phi,
  phiFor,
} from './phi/index.js';
export { mm1mMeanSojourn, mm1mSojournTail } from './queue/mm1mSojourn.js';
export type { OrbitFailedShare } from './queue/orbitFailedShare.js';
export {
  type OrbitClass,
  type OrbitClassFigures,
  type OrbitFigures,
  type OrbitMode,
  type OrbitService,
  orbitQueue,
} from './queue/orbitQueue.js';
export {
  type TimedServiceLoad,
  timedOfferedLoad,
  timedServiceLoad,
} from './queue/timedServiceLoad.js';
export { type RandomSource, seededRandom } from './random.js';
export { residualAlpha } from './residual.js';
export { attemptsPerRequest, type RetryFlow, retryFlow } from './retryFlow.js';
export {
  type ResidualClosure,
  type ServiceClassLoad,
  type ServiceClassReport,
  type ServiceLoad,
  type ServiceReport,
  solveService,
} from './service.js';
export {
  type AttemptCost,
  type AttemptOutcomeCost,
  bestSingleTimeout,
  ceilingTimeout,
  type EmpiricalLatency,
  type EmpiricalLatencyOptions,
  empiricalLatency,
  exponentialLatency,
  type KaplanMeierEstimate,
  kaplanMeier,
  type LatencyComponent,
  type LatencyDistribution,
  type LatencySample,
  type LogKernelLatency,
  type LogKernelOptions,
  type LognormalLatencyOptions,
  linearCost,
  logKernelLatency,
  lognormalLatency,
  mixtureLatency,
  type OptimizedTimeouts,
  type OptimizeTimeoutsOptions,
  optimizeTimeouts,
  type SequenceLatency,
  type SingleTimeoutOptimum,
  sequenceLatency,
  singleTimeout,
  type TimeoutNode,
} from './timeouts/index.js';
export {
  type AssessOptions,
  assessNetwork,
  paretoFrontier,
  type RetryRange,
  TUNE_METRICS,
  type TuneConstraint,
  type TuneMetric,
  type TuneMetrics,
  type TuneObjective,
  type TuneOptions,
  type TunePoint,
  type TuneResult,
  tuneRetryLimits,
} from './tune/index.js';
export {
  type CallCheckOptions,
  type CallConfigurationCheck,
  type CheckOptions,
  type ConfigurationCheck,
  type ConfigurationOptions,
  checkCallConfiguration,
  checkConfiguration,
  type DistinctFixedPoints,
  drawCallConfiguration,
  drawConfiguration,
  type FixedPointRun,
  findDistinctFixedPoints,
} from './uniqueness/index.js';
