/**
 * Span primitives and the two switches of the GenAI semantic conventions. Spans get explicit
 * parents (no context manager needed); the tracer is resolved on each call, so a provider
 * registered later (tests, the SDK) is picked up, and with none the API's no-op tracer costs next
 * to nothing.
 */
import {
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type TimeInput,
} from '@opentelemetry/api';

/** The tracer; resolved on each call so a provider registered later (tests, SDK) is picked up. */
function tracer() {
  return trace.getTracer('engiloop', '0.1.0');
}

/** Options of `startSpan` beyond name and attributes. */
export interface SpanOptions {
  /** Default: INTERNAL. */
  kind?: SpanKind;
  /** When the span began, if earlier than now (a span recorded after the fact). */
  startTime?: TimeInput;
}

/** Starts a span, as a child of `parent` when given (explicit parents: no context manager needed). */
export function startSpan(name: string, attributes: Attributes, parent?: Span, o: SpanOptions = {}): Span {
  const ctx = parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
  return tracer().startSpan(name, { attributes, ...o }, ctx);
}

/** Ends a span, marking it an error when `err` is given. */
export function endSpan(span: Span, err?: unknown, endTime?: TimeInput): void {
  if (err !== undefined) {
    span.recordException(err instanceof Error ? err : new Error(String(err)));
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
  }
  span.end(endTime);
}

/**
 * True when `OTEL_SEMCONV_STABILITY_OPT_IN` (a comma-separated list) holds
 * `gen_ai_latest_experimental`: spans then take the shapes of the OpenTelemetry GenAI semantic
 * conventions (Development status), and the earlier engiloop shapes they replace are not emitted.
 * Read on each call (a string split: nothing next to a span).
 */
export function genAiLatest(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.OTEL_SEMCONV_STABILITY_OPT_IN;
  return !!v && v.split(',').some((x) => x.trim() === 'gen_ai_latest_experimental');
}

/**
 * True when `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`: GenAI spans then carry the
 * messages sent and received, and tool arguments and results (images still only as references).
 */
export function captureContent(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === 'true';
}

/** A span that records nothing (what the no-op tracer returns). */
export const nonRecording = (): Span => trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/**
 * Starts a span of engiloop's earlier shape that a GenAI shape replaces under the opt-in (e.g.
 * `action`, replaced by `execute_tool {type}`): a real span by default, a non-recording one when
 * `genAiLatest()`.
 */
export function startLegacySpan(name: string, attributes: Attributes, parent?: Span): Span {
  return genAiLatest() ? nonRecording() : startSpan(name, attributes, parent);
}

/**
 * Records an episode's failure modes on its span as `engiloop.failure_modes` (string[], sorted,
 * without duplicates), e.g. `['deliverable.unverified', 'feedback.ignored']`. Call it on the
 * episode span (`invoke_agent …`, or `episode` without the opt-in) before it ends, once the
 * detectors have run; an empty list records nothing. Both span shapes carry it.
 *
 * @example
 * ```ts
 * recordFailureModes(span, findings.map((f) => f.mode));
 * endSpan(span);
 * ```
 */
export function recordFailureModes(span: Span, modes: readonly string[]): void {
  if (modes.length) span.setAttribute('engiloop.failure_modes', [...new Set(modes)].sort());
}
