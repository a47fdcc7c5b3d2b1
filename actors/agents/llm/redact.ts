/**
 * Redaction of recorded exchanges and episode events: credential headers are replaced, and known
 * secret values (with their encoded forms, see {@link secretForms}) and key-shaped strings are
 * scrubbed from URLs, bodies and event text, so a recording can be shared and replayed. The
 * exchanges and the events use the same {@link redactText}, so a replayed model output (read from
 * a redacted exchange) is the output the log recorded.
 */

/** What a secret is replaced with. */
export const REDACTED = '[REDACTED]';

/** Secrets shorter than this are not redacted (no provider key is; a short word is everywhere). */
const MIN_SECRET_LENGTH = 8;

// Credentials and account identifiers; rate-limit headers (`…-tokens-remaining`) stay readable.
const SECRET_HEADER =
  /^(authorization|proxy-authorization|cookie|set-cookie|openai-organization|openai-project)$|(^|-)(key|token|secret|session)$/i;
// Provider key shapes: OpenAI `sk-…`/`sk-proj-…`, Anthropic `sk-ant-…`, bearer tokens.
const KEY_SHAPES = [/\bsk-[A-Za-z0-9_-]{16,}/, /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/];
// Headers describing the wire, not the decoded body: a replayed body is sent decoded.
const WIRE_HEADERS = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection']);

/** Substrings of `base64(prefix + secret)` that depend on the secret's bytes alone, per alignment. */
function base64Cores(secret: Buffer): string[] {
  const out: string[] = [];
  for (let k = 0; k < 3; k++) {
    const total = k + secret.length;
    const enc = Buffer.concat([Buffer.alloc(k), secret]).toString('base64');
    // Characters that mix in bits of the bytes before (the pad) or after (unknown) are dropped.
    const start = [0, 2, 3][k]!;
    const end = Math.floor(total / 3) * 4 + [0, 1, 2][total % 3]!;
    out.push(enc.slice(start, end));
  }
  return out;
}

/**
 * Every form of `secrets` that is redacted, longest first (so the longest match wins), for each
 * secret of at least {@link MIN_SECRET_LENGTH} characters: the text itself; its base64 in the
 * standard and URL-safe alphabets at each of the 3 byte alignments it can have inside a longer
 * encoded text (so `echo "$KEY" | base64 -w0` and `base64 <<<"k=$KEY"` are caught, not the
 * line-wrapped output of plain `base64` past 57 bytes); its hex in lower and upper case (`xxd -p`
 * of the key alone); its percent-encoding (`encodeURIComponent`). Not caught: a secret split across
 * strings or events, or transformed otherwise (reversed, compressed, other encodings).
 */
function secretForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const s of secrets) {
    if (s.length < MIN_SECRET_LENGTH) continue;
    const bytes = Buffer.from(s, 'utf8');
    forms.add(s);
    for (const core of base64Cores(bytes))
      forms.add(core).add(core.replaceAll('+', '-').replaceAll('/', '_'));
    const hex = bytes.toString('hex');
    forms.add(hex).add(hex.toUpperCase()).add(encodeURIComponent(s));
  }
  return [...forms].filter((f) => f.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// One pattern per secrets list, built once: callers pass the same array for every text.
const patterns = new WeakMap<readonly string[], RegExp>();

/** One global pattern: every form of `secrets`, then the key shapes. */
export function redactionPattern(secrets: readonly string[]): RegExp {
  let re = patterns.get(secrets);
  if (!re) {
    const alternatives = [...secretForms(secrets).map(escapeRe), ...KEY_SHAPES.map((k) => k.source)];
    re = new RegExp(alternatives.join('|'), 'g');
    patterns.set(secrets, re);
  }
  return re;
}

/** Replaces every secret (in each form of {@link secretForms}) and key-shaped string in `text`. */
export function redactText(text: string, secrets: readonly string[]): string {
  return text.replace(redactionPattern(secrets), REDACTED);
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
