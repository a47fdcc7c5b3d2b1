/**
 * OpenTelemetry spans: episode → round → agent decision → action → verifier, with task id, round,
 * exit code and status. Configured by the standard OTEL_* variables (OTEL_EXPORTER_OTLP_ENDPOINT,
 * OTEL_TRACES_EXPORTER, …). With none set, nothing is loaded and the API's no-op tracer is used, so
 * it costs next to nothing.
 */
import { ROOT_CONTEXT, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';

/** The tracer; resolved on each call so a provider registered later (tests, SDK) is picked up. */
function tracer() {
  return trace.getTracer('engiloop', '0.1.0');
}

/** Starts a span, as a child of `parent` when given (explicit parents: no context manager needed). */
export function startSpan(name: string, attributes: Attributes, parent?: Span): Span {
  const ctx = parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
  return tracer().startSpan(name, { attributes }, ctx);
}

/** Ends a span, marking it an error when `err` is given. */
export function endSpan(span: Span, err?: unknown): void {
  if (err !== undefined) {
    span.recordException(err instanceof Error ? err : new Error(String(err)));
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
  }
  span.end();
}

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
