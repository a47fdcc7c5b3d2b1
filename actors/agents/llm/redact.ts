/**
 * Redaction of recorded exchanges: credential headers are replaced, and known secret values and
 * key-shaped strings are scrubbed from URLs and bodies, so a recording can be shared and replayed.
 */

/** What a secret is replaced with. */
export const REDACTED = '[REDACTED]';

// Credentials and account identifiers; rate-limit headers (`…-tokens-remaining`) stay readable.
const SECRET_HEADER =
  /^(authorization|proxy-authorization|cookie|set-cookie|openai-organization|openai-project)$|(^|-)(key|token|secret|session)$/i;
// Provider key shapes: OpenAI `sk-…`/`sk-proj-…`, Anthropic `sk-ant-…`, bearer tokens.
const KEY_SHAPES = [/\bsk-[A-Za-z0-9_-]{16,}/g, /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/g];
// Headers describing the wire, not the decoded body: a replayed body is sent decoded.
const WIRE_HEADERS = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection']);

/** Replaces every secret and key-shaped string in `text`. */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join(REDACTED);
  for (const re of KEY_SHAPES) out = out.replace(re, REDACTED);
  return out;
}

/** Headers as a plain record, lower-case names, credentials and wire-only headers handled. */
export function redactHeaders(
  headers: Headers | Record<string, string> | [string, string][] | undefined,
  secrets: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(headers).forEach((value, name) => {
    if (WIRE_HEADERS.has(name)) return;
    out[name] = SECRET_HEADER.test(name) ? REDACTED : redactText(value, secrets);
  });
  return out;
}

/** Deep-redacts string values of a parsed JSON body. */
export function redactJson(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return redactText(value, secrets);
  if (Array.isArray(value)) return value.map((v) => redactJson(v, secrets));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactJson(v, secrets)]));
  return value;
}
