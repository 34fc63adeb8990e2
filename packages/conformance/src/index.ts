export { assertBuilt } from "./assert-built.js";
export type {
  ChannelPair,
  ChannelSuiteOptions,
  ChannelSupports,
} from "./channel-suite.js";
export { channelSuite } from "./channel-suite.js";
export type {
  CodecSuiteOptions,
  CodecSuiteType,
  RandomBytesOptions,
  Truncation,
} from "./codec-suite.js";
export { codecSuite } from "./codec-suite.js";
export { createConformanceHandlers } from "./conformance-handlers.js";
export type {
  ConformanceService,
  CountRequest,
  EchoMessage,
  Empty,
  FailRequest,
  GenerateRequest,
  MetadataReply,
  SleepReply,
  SleepRequest,
  StatsReply,
  StatsRequest,
  StreamItem,
  SumReply,
} from "./conformance-service.js";
export {
  checksumStep,
  conformanceService,
  conformanceServiceWithMissing,
  unknownService,
} from "./conformance-service.js";
export type { CreditWindowCheckOptions } from "./credit-window-check.js";
export { creditWindowCheck, Held } from "./credit-window-check.js";
export type {
  ByteStreamFuzzOptions,
  FuzzBatchOptions,
  FuzzCase,
  FuzzLoopOptions,
  FuzzLoopResult,
  HexCase,
} from "./fuzz.js";
export {
  byteStreamFuzz,
  closedWithin,
  fuzzBatch,
  fuzzLoop,
  fuzzRun,
  processRssBytes,
  readCorpus,
  writeInRandomChunks,
} from "./fuzz.js";
export { readKnownFailures } from "./known-failures.js";
export type { LendingCheckOptions, LendingCheckResult } from "./lending-check.js";
export {
  assertLending,
  lendingCheck,
  lendingChecker,
  patterned,
  Sink,
  sinkCodec,
} from "./lending-check.js";
export type { CodecRef, TransportFactoryModule, TransportFactoryOptions } from "./module-refs.js";
export type { Vector } from "./protocol-vectors.js";
export { field, hex, inputBytes, readVectors } from "./protocol-vectors.js";
export type { RunReadmeExampleOptions } from "./readme-examples.js";
export { readmeExamples, runReadmeExample } from "./readme-examples.js";
export type { RequestFrame } from "./rpc-frames.js";
export { decodeRequestFrame, encodeMessage } from "./rpc-frames.js";
export type { Rng } from "./seeded.js";
export { derivedPrng, prng, seededBytes } from "./seeded.js";
export { checkSeq, readSeq, seqFrame } from "./seq-frames.js";
export type { ServerProcess } from "./server-process.js";
export { startServerProcess } from "./server-process.js";
export type { TransportSupports } from "./suite-harness.js";
export { threadServer } from "./thread-child.js";
export type { TmpResources } from "./tmp-resources.js";
export { createTmpResources, MAX_SOCKET_PATH_BYTES } from "./tmp-resources.js";
export type { SuiteName, TransportSuiteOptions } from "./transport-suite.js";
export { transportSuite } from "./transport-suite.js";
export { waitFor } from "./wait.js";
