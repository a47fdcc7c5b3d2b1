/**
 * Public surface of the span helpers (re-exported by actors/telemetry.ts, which callers import).
 * Shapes: spans.ts (primitives, switches), agent-spans.ts (`invoke_agent`, `chat`),
 * tool-spans.ts (`execute_tool`), evaluation.ts (`gen_ai.evaluation.result`), content.ts.
 */
export {
  captureContent,
  endSpan,
  genAiLatest,
  recordFailureModes,
  startLegacySpan,
  startSpan,
} from './spans.js';
export { endEpisodeSpan, recordChat, startEpisodeSpan } from './agent-spans.js';
export { endToolSpan, startToolSpan } from './tool-spans.js';
export { recordEvaluations, recordStageChecks } from './evaluation.js';
