/**
 * Sealing a hidden testbench for one verification: every module it declares gets a suffix made from
 * the verification's nonce (so a design cannot name the testbench, upward or from `$root`), and the
 * `PASS` / `FAIL` / `RESULT` tokens it prints get the nonce too (so a design cannot print a line the
 * verdict reads). Then reading what the sealed testbench printed.
 */
import { ID_CHAR, lexVerilog } from './verilog-lex.js';

/** A testbench sealed with a nonce. */
export interface SealedBench {
  /** The rewritten source. */
  text: string;
  /** Original module names → sealed names. */
  modules: Map<string, string>;
  /** Every identifier of the original testbench (to name "testbench signals" in reasons). */
  names: Set<string>;
  /** The testbench prints a `RESULT p/t` line: the verdict then needs it. */
  printsResult: boolean;
}

const TOKEN = /(^|\\n)(\s*)(PASS|FAIL|RESULT)\b/g;

/**
 * Seals `src` with `nonce`: `module tb_counter` → `module tb_counter__<nonce>` (every use in code,
 * not in comments or strings), `"RESULT %0d/%0d"` → `"RESULT-<nonce> %0d/%0d"` (a token at the start
 * of a string or after a `\n` in it).
 *
 * @example sealTestbench('module tb; initial $display("PASS 1"); endmodule', 'ab12').text
 * // 'module tb__ab12; initial $display("PASS-ab12 1"); endmodule'
 */
export function sealTestbench(src: string, nonce: string): SealedBench {
  const { code, strings } = lexVerilog(src);
  const modules = new Map<string, string>();
  for (const m of code.matchAll(
    /\b(?:module|macromodule|program|interface)\s+(?:(?:automatic|static)\s+)?([A-Za-z_][\w$]*)/g,
  ))
    modules.set(m[1]!, `${m[1]}__${nonce}`);
  const names = new Set([...code.matchAll(/[A-Za-z_][\w$]*/g)].map((m) => m[0]));
  const edits: { start: number; end: number; text: string }[] = [];
  if (modules.size > 0) {
    const alt = [...modules.keys()].map((n) => n.replace(/\$/g, '\\$')).join('|');
    for (const m of code.matchAll(new RegExp(`(?<!${ID_CHAR})(?:${alt})(?!${ID_CHAR})`, 'g')))
      edits.push({ start: m.index, end: m.index + m[0].length, text: modules.get(m[0])! });
  }
  let printsResult = false;
  for (const s of strings) {
    const body = src.slice(s.start, s.end);
    const sealed = body.replace(TOKEN, (_all, lead: string, ws: string, tok: string) => {
      if (tok === 'RESULT') printsResult = true;
      return `${lead}${ws}${tok}-${nonce}`;
    });
    if (sealed !== body) edits.push({ start: s.start, end: s.end, text: sealed });
  }
  edits.sort((a, b) => a.start - b.start);
  let text = '';
  let at = 0;
  for (const e of edits) {
    text += src.slice(at, e.start) + e.text;
    at = e.end;
  }
  return { text: text + src.slice(at), modules, names, printsResult };
}

/** What a sealed testbench printed. */
export interface BenchOutput {
  /** From the last sealed `RESULT p/t` line, when there is one. */
  result?: { passed: number; total: number };
  /** Sealed `PASS` lines. */
  passLines: number;
  /** Every `FAIL` line, sealed or not, with the nonce taken out (a FAIL is never outvoted). */
  failLines: string[];
  /** `PASS` / `RESULT` lines without the nonce: not the testbench's, so not counted. */
  unsealed: string[];
}

/**
 * Reads vvp's output for the tokens sealed with `nonce`.
 *
 * @example readBenchOutput('PASS-n 1\nFAIL-n 2: q=3\nRESULT-n 1/2\nRESULT 2/2\n', 'n')
 * // { result: { passed: 1, total: 2 }, passLines: 1, failLines: ['FAIL 2: q=3'], unsealed: ['RESULT 2/2'] }
 */
export function readBenchOutput(stdout: string, nonce: string): BenchOutput {
  const out: BenchOutput = { passLines: 0, failLines: [], unsealed: [] };
  const tag = `-${nonce}`;
  for (const raw of stdout.split('\n')) {
    const line = raw.trim();
    const m = /^(PASS|FAIL|RESULT)(-[0-9a-f]+)?\b(.*)$/.exec(line);
    if (m === null) continue;
    const sealed = m[2] === tag;
    const [tok, rest] = [m[1]!, m[3]!];
    if (tok === 'FAIL') out.failLines.push(`FAIL${rest}`);
    else if (!sealed) out.unsealed.push(line);
    else if (tok === 'PASS') out.passLines++;
    else {
      const r = /^\s+(\d+)\s*\/\s*(\d+)\s*$/.exec(rest);
      if (r !== null && Number(r[1]) <= Number(r[2]))
        out.result = { passed: Number(r[1]), total: Number(r[2]) };
    }
  }
  return out;
}

/**
 * Passed and total checks: the sealed RESULT line's counts (else the sealed PASS lines and every
 * FAIL line), with at least as many failures as FAIL lines were printed.
 */
export function countChecks(o: BenchOutput): { passed: number; total: number } {
  const base = o.result ?? { passed: o.passLines, total: o.passLines + o.failLines.length };
  const total = Math.max(base.total, o.failLines.length);
  const failures = Math.max(base.total - base.passed, o.failLines.length);
  return { passed: Math.max(0, total - failures), total };
}
