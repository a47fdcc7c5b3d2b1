/**
 * A minimal Verilog lexer for the checks `verilog.testbench` makes on source text: it separates
 * code from comments and string literals, keeping every offset, so a scan of the code never
 * matches inside a comment or a string and an edit can be spliced back into the original text.
 */

/** Source split into code and string literals, offsets kept. */
export interface LexedVerilog {
  /** The source with comments and string contents blanked to spaces (line breaks kept). */
  code: string;
  /** String literals as `[start, end)` offsets of their contents (without the quotes). */
  strings: { start: number; end: number }[];
}

const blank = (s: string): string => s.replace(/[^\n]/g, ' ');

/**
 * Lexes `src`. Escaped identifiers (`\tb.x `) become plain-looking identifiers of the same length
 * (the backslash and any character an identifier cannot hold turn into `_`), so a scan for dotted
 * names does not see a dot inside one.
 *
 * @example lexVerilog('a = "x"; // c').code // 'a = " "; // c' with the comment blanked too
 */
export function lexVerilog(src: string): LexedVerilog {
  let code = '';
  const strings: { start: number; end: number }[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    const next = src[i + 1];
    if (c === '/' && next === '/') {
      const end = src.indexOf('\n', i);
      const stop = end < 0 ? src.length : end;
      code += blank(src.slice(i, stop));
      i = stop;
    } else if (c === '/' && next === '*') {
      const end = src.indexOf('*/', i + 2);
      const stop = end < 0 ? src.length : end + 2;
      code += blank(src.slice(i, stop));
      i = stop;
    } else if (c === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== '"' && src[j] !== '\n') j += src[j] === '\\' ? 2 : 1;
      const end = Math.min(j, src.length);
      strings.push({ start: i + 1, end });
      code += `"${blank(src.slice(i + 1, end))}${src[end] === '"' ? '"' : ''}`;
      i = src[end] === '"' ? end + 1 : end;
    } else if (c === '\\') {
      let j = i + 1;
      while (j < src.length && !/\s/.test(src[j]!)) j++;
      code += `_${src.slice(i + 1, j).replace(/[^\w$]/g, '_')}`;
      i = j;
    } else {
      code += c;
      i++;
    }
  }
  return { code, strings };
}

/** The 1-based line of offset `at` in `text`. */
export function lineAt(text: string, at: number): number {
  let n = 1;
  for (let i = 0; i < at && i < text.length; i++) if (text[i] === '\n') n++;
  return n;
}

/** Identifier characters, for look-arounds: a name never starts or ends next to one of these. */
export const ID_CHAR = String.raw`[A-Za-z0-9_$]`;
