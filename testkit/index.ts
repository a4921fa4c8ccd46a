/** The scripted model server and its helpers, for tests, the demo and the benchmarks. */
export { PromptCache, simulateUsage } from './cache.js';
export {
  createFakeProvider,
  type FakeProvider,
  type FakeProviderOptions,
  type FakeScript,
  type FakeStep,
  type FakeToolCall,
} from './fake-provider.js';
export { loadPolicy } from './main.js';
export {
  byModel,
  lastToolResults,
  lastUserText,
  SEQUENCE_DONE,
  type Step,
  sequence,
  turnIndex,
} from './policies.js';
export { commonPrefixBytes, estimateTokens, type PrefixStabilityReport, prefixStability } from './prefix.js';
export { MALFORMED_ARGUMENTS, UNKNOWN_TOOL_NAME } from './reply.js';
export { type ModelServerOptions, startModelServer } from './server.js';
export {
  Fault,
  type ModelServer,
  type Policy,
  PolicyReply,
  type RecordedRequest,
  type ScriptedConversation,
  ScriptedToolCall,
  type WireFormat,
} from './types.js';
export {
  AnthropicRequestBody,
  type CanonicalPrompt,
  canonicalPrompt,
  firstUserText,
  OpenAIRequestBody,
  type ParsedConversation,
  parseAnthropicRequest,
  parseOpenAIRequest,
} from './wire.js';
