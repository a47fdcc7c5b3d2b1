/**
 * Text from sandboxes and models, made safe to print on a terminal. Command output, model output
 * and MCP client names are written by the agent: printed raw, an escape sequence could retitle the
 * window (`ESC ]0;…BEL`), clear the screen (`ESC [2J`), overwrite a line (`CR`), hide text
 * (backspace) or reorder it (bidi overrides, "Trojan Source"). Every terminal view passes such text
 * through {@link escapeForTerminal}; `--json` output goes through {@link jsonForTerminal}.
 *
 * Shared by `actors/cli`, `actors/replay` and `actors/provenance` (which the CLI imports), so it
 * lives beside them rather than inside one of them.
 */

/** Options of {@link escapeForTerminal}. */
export interface EscapeOptions {
  /** Keep `\n` and `\t` as they are (multi-line views). Default false: shown as `\n`, `\t`. */
  multiline?: boolean;
}

// C0 controls but \t and \n, DEL, C1 controls; bidi embeddings, overrides and isolates, the
// implicit marks (LRM, RLM, ALM) and the line/paragraph separators some terminals act on.
const UNSAFE_MULTILINE =
  /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_ONE_LINE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// Unpaired UTF-16 surrogates: not text, and printed as U+FFFD at best.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };

function visible(c: string): string {
  const code = c.charCodeAt(0);
  return NAMED[c] ?? (code <= 0xff ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`);
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/**
 * `s` with every control character written out as a visible escape: ESC as `\x1b`, CR as `\r`,
 * BEL as `\x07`, C1 controls as `\x9b`, bidi controls as `\u202e`, lone surrogates as `\ud800`.
 * With `multiline`, `\n` and `\t` stay as they are. Printable text, backslashes included, is
 * unchanged, so escaping twice gives the same text. Cheap when there is nothing to escape.
 * @example escapeForTerminal('\x1b]0;pwned\x07') // the 12 characters \x1b]0;pwned\x07
 */
export function escapeForTerminal(s: string, o: EscapeOptions = {}): string {
  const out = s.replace(o.multiline ? UNSAFE_MULTILINE : UNSAFE_ONE_LINE, visible);
  return out.replace(LONE_SURROGATE, visible);
}

// What JSON.stringify leaves raw that a terminal may act on (it escapes C0 controls itself).
const JSON_UNSAFE = /[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `JSON.stringify(value, null, space)`, with DEL, C1 and bidi controls written as `\uXXXX`
 * escapes: the same JSON value (those characters only occur inside strings), safe to print.
 */
export function jsonForTerminal(value: unknown, space?: number): string {
  const json = JSON.stringify(value, null, space);
  return json === undefined ? 'undefined' : json.replace(JSON_UNSAFE, (c) => `\\u${hex(c.charCodeAt(0), 4)}`);
}
