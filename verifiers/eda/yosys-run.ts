/**
 * The yosys run of `yosys.equivalence`: one shell command in a fresh tool container that reads the
 * design, then proves it against the reference, checks it is gate-level and/or synthesises it,
 * echoing markers sealed with the verification's nonce (a design can print at elaboration, so a
 * fixed marker could be forged); and reading those markers back.
 */

/** File names inside the container. */
export const DESIGN = 'engiloop_design.v';
export const GOLD = 'engiloop_gold.v';
export const STAT_JSON = 'engiloop_stat.json';

/** What the command is asked to do. */
export interface YosysJob {
  top: string;
  /** Prove against the reference (`equiv_simple -seq <seq>`). */
  equiv?: { seq: number };
  gateLevel: boolean;
  /** Synthesis script (yosys commands), run before `stat -json`. */
  synth?: string;
}

/** A marker sealed with `nonce`. */
const sealedMark =
  (nonce: string) =>
  (s: string): string =>
    `@@ENGILOOP-${s}-${nonce}@@`;

/** The shell command: read check, then the equivalence proof, gate-level check and synthesis. */
export function yosysCommand(job: YosysJob, nonce: string): string {
  const mark = sealedMark(nonce);
  const t = job.top;
  const lines = [
    `yosys -p 'read_verilog -sv ${DESIGN}; hierarchy -check -top ${t}' > read.log 2>&1 || { echo ${mark('READ-FAILED')}; grep -m3 -E 'ERROR|error' read.log; exit 3; }`,
    // A design that prints a verifier marker while it is read is trying to forge one.
    `if grep -q '@@ENGILOOP' read.log; then echo ${mark('PRINTS-MARKER')}; grep -m1 '@@ENGILOOP' read.log | cut -c1-200; fi`,
  ];
  if (job.equiv !== undefined)
    lines.push(
      `yosys -q -p 'read_verilog -sv ${GOLD}; prep -flatten -top ${t}; design -stash gold; read_verilog -sv ${DESIGN}; prep -flatten -top ${t}; design -stash gate; design -copy-from gold -as gold ${t}; design -copy-from gate -as gate ${t}; equiv_make gold gate equiv; hierarchy -top equiv; equiv_simple -seq ${job.equiv.seq}; equiv_induct; equiv_status -assert' > equiv.log 2>&1; echo "${mark('EQUIV-EXIT')} $?"; grep -m2 -E '^ERROR' equiv.log`,
    );
  if (job.gateLevel)
    lines.push(
      `yosys -p 'read_verilog -sv ${DESIGN}; hierarchy -check -top ${t}; proc; tee -q -o mods.txt ls; select -assert-none r:A_WIDTH>1 r:B_WIDTH>1 r:Y_WIDTH>1 r:WIDTH>1 t:$mem* t:$mem_v2' > gate.log 2>&1; echo "${mark('GATE-EXIT')} $? $(grep -m1 modules mods.txt)"; grep -A3 'selection is not empty' gate.log | tail -3`,
    );
  if (job.synth !== undefined)
    lines.push(
      `yosys -p 'read_verilog -sv ${DESIGN}; ${job.synth}; tee -q -o ${STAT_JSON} stat -json' > synth.log 2>&1; echo "${mark('SYNTH-EXIT')} $?"; grep -m2 '^ERROR' synth.log`,
    );
  return lines.join('\n');
}

/** What the command printed. */
export interface YosysReading {
  readError?: string;
  /** The line a design printed with a verifier marker in it, while it was read. */
  printsMarker?: string;
  equivalent?: boolean;
  unproven?: number;
  equivError?: string;
  /** Synthesis exit status and first error, when it ran. */
  synth?: { exit: number; error?: string };
  /** `gate_level`: the module count, and up to three cells that are not 1-bit (empty when none). */
  gate?: { modules: number; wide: string[] };
}

/** The text after `marker` up to the next sealed marker. */
function section(stdout: string, marker: string): string | undefined {
  const i = stdout.indexOf(marker);
  if (i < 0) return undefined;
  const rest = stdout.slice(i + marker.length);
  const next = rest.search(/@@ENGILOOP-[A-Z-]+-[0-9a-f]+@@/);
  return next < 0 ? rest : rest.slice(0, next);
}

/** Reads the markers sealed with `nonce` and the numbers the command prints. */
export function readYosysOutput(stdout: string, nonce: string): YosysReading {
  const mark = sealedMark(nonce);
  const r: YosysReading = {};
  const read = section(stdout, mark('READ-FAILED'));
  if (read !== undefined) {
    r.readError = read.trim().split('\n').slice(0, 2).join(' | ');
    return r;
  }
  const printed = section(stdout, mark('PRINTS-MARKER'));
  if (printed !== undefined) r.printsMarker = printed.trim().split('\n')[0] ?? '';
  const eq = section(stdout, mark('EQUIV-EXIT'));
  if (eq !== undefined) {
    const exit = /^\s*(\d+)/.exec(eq)?.[1];
    r.equivalent = exit === '0';
    const unproven = /Found (\d+) unproven \$equiv cells/.exec(eq);
    if (unproven !== null) r.unproven = Number(unproven[1]);
    const err = /^ERROR: (.*)$/m.exec(eq);
    if (err !== null && unproven === null) r.equivError = err[1];
  }
  const gate = section(stdout, mark('GATE-EXIT'));
  if (gate !== undefined) {
    const m = /^\s*(\d+) (\d+) modules/.exec(gate);
    const tail = gate.split('\n').slice(1, 4);
    const bad = m === null || m[1] !== '0';
    const wide = bad ? tail.map((l) => l.trim()).filter((l) => l.includes('$')) : [];
    r.gate = {
      modules: m === null ? 0 : Number(m[2]),
      wide: bad && wide.length === 0 ? ['(unnamed)'] : wide,
    };
  }
  const sy = section(stdout, mark('SYNTH-EXIT'));
  if (sy !== undefined) {
    const exit = Number(/^\s*(\d+)/.exec(sy)?.[1] ?? 1);
    const error = /^ERROR: (.*)$/m.exec(sy)?.[1];
    r.synth = { exit, ...(error === undefined ? {} : { error }) };
  }
  return r;
}
