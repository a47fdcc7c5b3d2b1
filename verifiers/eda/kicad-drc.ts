/**
 * Running KiCad 6's DRC headless (pcbnew's Python API in the kicad image) and reading its report.
 * There is no kicad-cli in KiCad 6: `pcbnew.LoadBoard` + `pcbnew.WriteDRCReport` is the way.
 */
import type { RunTool, ToolResult } from '../types.js';

/** Image with KiCad 6.0 and pcbnew's Python module for /usr/bin/python3. */
export const KICAD_IMAGE = 'engiloop/kicad:latest';

/** A DRC report's counts and first items. */
export interface DrcReport {
  /** Violations by severity (`error`, `warning`, …). */
  violations: Record<string, number>;
  violationTotal: number;
  unconnected: number;
  /** First items, e.g. `[clearance] Clearance violation (…) (error)`. */
  items: string[];
}

const LOAD_FAILED = '@@ENGILOOP-LOAD-FAILED@@';
const DRC_SCRIPT = `import sys, pcbnew
try:
    board = pcbnew.LoadBoard(sys.argv[1])
except Exception as e:
    print('${LOAD_FAILED}', e)
    sys.exit(3)
if board is None or not pcbnew.WriteDRCReport(board, 'engiloop_drc.rpt', pcbnew.EDA_UNITS_MILLIMETRES, True):
    print('${LOAD_FAILED}', 'WriteDRCReport failed')
    sys.exit(3)
`;

/**
 * The shell command that runs DRC on `board` in /workspace. HOME points to a fresh folder seeded
 * with empty library tables, so first-start dialogs and a read-only home cannot block pcbnew.
 */
function drcCommand(board: string): string {
  return [
    'export HOME=/tmp/engiloop-kicad-home',
    'mkdir -p $HOME/.config/kicad/6.0',
    "printf '(fp_lib_table\\n)\\n' > $HOME/.config/kicad/6.0/fp-lib-table",
    "printf '(sym_lib_table\\n)\\n' > $HOME/.config/kicad/6.0/sym-lib-table",
    `cat > /tmp/engiloop_drc.py <<'PY'\n${DRC_SCRIPT}PY`,
    `/usr/bin/python3 /tmp/engiloop_drc.py ${board}`,
  ].join('\n');
}

/** Runs DRC in a fresh kicad container; returns the report text or why there is none. */
export async function runDrc(
  runTool: RunTool,
  hostPath: string,
  opts: { image: string; timeoutMs: number; signal?: AbortSignal },
): Promise<{ ok: true; report: string; res: ToolResult } | { ok: false; reason: string }> {
  const board = 'engiloop_board.kicad_pcb';
  const res = await runTool(
    {
      image: opts.image,
      command: drcCommand(board),
      files: [{ hostPath, dest: board }],
      timeoutMs: opts.timeoutMs,
      collect: ['engiloop_drc.rpt'],
    },
    opts.signal,
  );
  if (res.timedOut) return { ok: false, reason: `pcbnew DRC timed out after ${opts.timeoutMs / 1000} s` };
  const text = `${res.stdout}\n${res.stderr}`;
  if (text.includes(LOAD_FAILED)) {
    const why = text
      .slice(text.indexOf(LOAD_FAILED) + LOAD_FAILED.length)
      .trim()
      .split('\n')[0];
    return { ok: false, reason: `pcbnew could not load the board: ${why}` };
  }
  const report = res.files['engiloop_drc.rpt'];
  if (report === undefined) {
    const tail = text.trim().split('\n').slice(-3).join(' | ');
    return { ok: false, reason: `pcbnew wrote no DRC report (exit ${res.exitCode}): ${tail}` };
  }
  return { ok: true, report: report.toString('utf8'), res };
}

/** Reads a KiCad 6 DRC report (`** Found N DRC violations **` … `** Found N unconnected pads **`). */
export function parseDrcReport(text: string): DrcReport | undefined {
  const v = /\*\* Found (\d+) DRC violations \*\*/.exec(text);
  const u = /\*\* Found (\d+) unconnected pads \*\*/.exec(text);
  if (v === null || u === null) return undefined;
  const violationsText = text.slice(v.index, u.index);
  const violations: Record<string, number> = {};
  const items: string[] = [];
  const blocks = violationsText.split(/\n(?=\[)/).slice(1);
  for (const b of blocks) {
    const severity = /Severity: (\w+)/.exec(b)?.[1] ?? 'error';
    violations[severity] = (violations[severity] ?? 0) + 1;
    items.push(`${b.split('\n')[0]?.trim()} (${severity})`);
  }
  for (const b of text
    .slice(u.index)
    .split(/\n(?=\[)/)
    .slice(1, 4)) {
    const lines = b.split('\n').map((l) => l.trim());
    items.push(`${lines[0]} ${lines.filter((l) => l.startsWith('@')).join(' ↔ ')}`.slice(0, 240));
  }
  return { violations, violationTotal: Number(v[1]), unconnected: Number(u[1]), items };
}
