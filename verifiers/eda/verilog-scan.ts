/**
 * What a delivered Verilog design may not contain when a hidden testbench judges it: references out
 * of its own module tree (`force tb.passed = …`, `$root.…`, `bind`), file or VPI system tasks that
 * could read the testbench or reach into the simulator, `` `include `` and macros it does not
 * define, and (unless the task allows it) tasks that print or end the simulation. A static scan of
 * the source, with the attempt and its line; the compile of the design on its own (see
 * `verilog.ts`) catches whatever a scan cannot see.
 */
import { ID_CHAR, lexVerilog, lineAt } from './verilog-lex.js';

/** Pure functions, simulation time, randomness and timing checks: they cannot reach the testbench. */
const ALLOWED = new Set(
  [
    'clog2 signed unsigned bits size left right low high increment dimensions unpacked_dimensions',
    'ln log10 exp sqrt pow floor ceil sin cos tan asin acos atan atan2 hypot sinh cosh tanh asinh acosh atanh',
    'rtoi itor realtobits bitstoreal shortrealtobits bitstoshortreal countones countbits onehot onehot0 isunknown',
    'time stime realtime random urandom urandom_range',
    'setup hold setuphold recovery removal recrem skew timeskew fullskew period width nochange',
  ]
    .join(' ')
    .split(' ')
    .map((n) => `$${n}`),
);

/** Tasks that print or end the simulation: allowed only with `design_may_print`. */
const PRINTING =
  /^\$(?:display|write|strobe|monitor|swrite)[bho]?$|^\$(?:monitoron|monitoroff|finish|stop|fatal|error|warning|info|sformatf?|printtimescale|timeformat)$/;

/** File I/O: could read the hidden testbench or write beside it. */
const FILE_IO =
  /^\$(?:f\w+|readmem[bh]|writemem[bh]|dump\w*|sdf_annotate|s?scanf|test\$plusargs|value\$plusargs|load_\w+)$/;

const DIRECTIVES = new Set(
  [
    'timescale define undef undefineall ifdef ifndef elsif else endif default_nettype resetall',
    'celldefine endcelldefine line unconnected_drive nounconnected_drive pragma begin_keywords end_keywords',
    '__FILE__ __LINE__',
  ]
    .join(' ')
    .split(' '),
);

/** Why a design is refused, with the line of the attempt. */
export interface DesignRefusal {
  /** What the design tries, e.g. `force tb_counter.passed`. */
  attempt: string;
  line: number;
  /** The reason, e.g. `design drives testbench signal tb_counter.passed (force, line 3)`. */
  reason: string;
}

/**
 * The first construct of `design` that could reach the testbench's verdict, or null.
 *
 * @param benchNames identifiers of the testbench (its modules, tasks, signals), to say "testbench
 *   signal" when the design names one.
 * @example scanDesign('module m;\ninitial force tb.passed = 1;\nendmodule', { mayPrint: false, benchNames: new Set(['tb']) })
 * // { attempt: 'force tb.passed', line: 2, reason: 'design drives testbench signal tb.passed (force, line 2)' }
 */
export function scanDesign(
  design: string,
  opts: { mayPrint: boolean; benchNames: ReadonlySet<string> },
): DesignRefusal | null {
  const { code } = lexVerilog(design);
  const found: DesignRefusal[] = [];
  const at = (i: number): number => lineAt(code, i);
  const refuse = (i: number, attempt: string, why: (line: number) => string): void => {
    found.push({ attempt, line: at(i), reason: why(at(i)) });
  };

  for (const m of code.matchAll(/`\s*([A-Za-z_]\w*)/g)) {
    const word = m[1]!;
    if (word === 'include')
      refuse(
        m.index,
        '`include',
        (l) =>
          `design includes a file (\`include, line ${l}): it must be self-contained (an include could read the hidden testbench)`,
      );
  }
  if (code.includes('``'))
    refuse(
      code.indexOf('``'),
      'macro token pasting',
      (l) => `design pastes macro tokens (\`\`, line ${l}), which can hide a system task name`,
    );
  const defined = new Set([...code.matchAll(/`define\s+([A-Za-z_]\w*)/g)].map((m) => m[1]!));
  for (const m of code.matchAll(/`\s*([A-Za-z_]\w*)/g)) {
    const word = m[1]!;
    if (!DIRECTIVES.has(word) && word !== 'include' && !defined.has(word))
      refuse(
        m.index,
        `\`${word}`,
        (l) =>
          `design uses macro \`${word} (line ${l}), which it does not define: it would expand to the testbench's text`,
      );
  }

  for (const m of code.matchAll(
    new RegExp(`(?<!${ID_CHAR})(\\$[A-Za-z_][\\w$]*)((?:\\s*(?:\\.|::)\\s*[A-Za-z_][\\w$]*)*)`, 'g'),
  )) {
    const name = m[1]!;
    const path = m[2]!.replace(/\s+/g, '');
    if (ALLOWED.has(name) || (opts.mayPrint && PRINTING.test(name))) continue;
    const what =
      name === '$root' || name === '$unit'
        ? `refers to ${name}${path} (line %L): a name from the top of the simulation reaches the testbench`
        : PRINTING.test(name)
          ? `calls ${name} (line %L): the hidden testbench's output is the verdict, so the design may not print or end the simulation; remove the call`
          : FILE_IO.test(name)
            ? `calls ${name} (line %L): file I/O could read the hidden testbench`
            : `calls ${name} (line %L): only maths, conversion, time and timing-check system functions are allowed (no VPI, $deposit or simulator control)`;
    refuse(m.index, name + path, (l) => `design ${what.replace('%L', String(l))}`);
  }
  for (const m of code.matchAll(/\bbind\b/g))
    refuse(
      m.index,
      'bind',
      (l) => `design uses bind (line ${l}): it would insert code into other modules, such as the testbench`,
    );

  const heads = [
    ...code.matchAll(
      new RegExp(
        `(?<![\\w$'.\`])([A-Za-z_][\\w$]*)((?:\\s*\\[[^\\]\\n]*\\])*)\\s*\\.\\s*([A-Za-z_][\\w$]*)`,
        'g',
      ),
    ),
  ];
  const headAt = new Set(heads.map((m) => m.index));
  const declared = new Set<string>();
  for (const m of code.matchAll(new RegExp(`(?<!${ID_CHAR}|['\`.])[A-Za-z_][\\w$]*`, 'g')))
    if (!headAt.has(m.index) && !defined.has(m[0])) declared.add(m[0]);
  for (const m of heads) {
    const head = m[1]!;
    if (declared.has(head)) continue;
    const ref = `${head}${m[2]!.replace(/\s+/g, '')}.${m[3]}`;
    const stmt = code.slice(Math.max(code.lastIndexOf(';', m.index), 0), m.index);
    const verb = /\b(force|release|assign|deassign|defparam)\b[^=;]*$/.exec(stmt)?.[1];
    const whose = opts.benchNames.has(head) ? 'testbench signal' : 'signal';
    refuse(m.index, verb ? `${verb} ${ref}` : ref, (l) =>
      verb
        ? `design drives ${whose} ${ref} (${verb}, line ${l}), outside its own modules`
        : `design refers to ${whose} ${ref} (line ${l}), outside its own modules`,
    );
  }
  found.sort((a, b) => a.line - b.line);
  return found[0] ?? null;
}
