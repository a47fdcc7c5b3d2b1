/**
 * OpenTelemetry spans: episode → round → agent decision → action, and verify → verifier, with task
 * id, round, exit code and status. Configured by the standard OTEL_* variables
 * (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_EXPORTER, …). With none set, nothing is loaded and the
 * API's no-op tracer is used, so it costs next to nothing.
 *
 * With `OTEL_SEMCONV_STABILITY_OPT_IN` holding `gen_ai_latest_experimental` the spans follow the
 * OpenTelemetry GenAI semantic conventions (Development status): `invoke_agent {agent}` for the
 * episode, `chat {model}` per provider call, `execute_tool {action}` per action and
 * `gen_ai.evaluation.result` events for verdicts and scores (see telemetry/agent-spans.ts,
 * tool-spans.ts, evaluation.ts). `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` adds
 * message content, images only as object-store references (telemetry/content.ts).
 */
export {
  captureContent,
  endEpisodeSpan,
  endSpan,
  endToolSpan,
  genAiLatest,
  recordChat,
  recordEvaluations,
  recordFailureModes,
  recordStageChecks,
  startEpisodeSpan,
  startLegacySpan,
  startSpan,
  startToolSpan,
} from './telemetry/index.js';

/** True when any OTEL_* variable asks for telemetry. */
export function telemetryConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true') return false;
  return Boolean(
    env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_TRACES_EXPORTER,
  );
}

/**
 * Starts the OpenTelemetry Node SDK when configured by OTEL_* variables; returns its shutdown.
 * Loaded lazily so an unconfigured run never imports the SDK.
 */
export async function initTelemetry(env: NodeJS.ProcessEnv = process.env): Promise<() => Promise<void>> {
  if (!telemetryConfigured(env)) return async () => {};
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK({ serviceName: env.OTEL_SERVICE_NAME ?? 'engiloop' });
  sdk.start();
  return () => sdk.shutdown();
}
