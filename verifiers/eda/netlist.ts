/**
 * SPICE netlist text handling for the `spice.measure` verifier: strip what the agent could use to
 * fake or steer a measurement, append the task's own `.control` block, and read the result back.
 */

/** Marker echoed by the appended control block; results are read only after it. */
export const RESULTS_MARKER = '@@ENGILOOP-RESULTS@@';

/**
 * Dot commands removed from the agent's netlist: analyses, outputs and measurements (the task's
 * control block runs its own), and `.save` (it can hide the vectors the task measures).
 */
const STRIPPED = new Set([
  '.meas',
  '.measure',
  '.print',
  '.plot',
  '.probe',
  '.four',
  '.save',
  '.op',
  '.ac',
  '.dc',
  '.tran',
  '.noise',
  '.tf',
  '.sens',
  '.pz',
  '.disto',
  '.pss',
  '.sp',
]);

/**
 * The netlist to simulate: the agent's title and circuit, without any `.control` block, without
 * the analysis / output / measurement dot commands listed above (and their `+` continuation lines),
 * cut at the first `.end`; then the task's control block, a results marker, `print <measure>`, and
 * `.end`.
 *
 * @param controlBody lines to run inside `.control … .endc`, e.g. `ac dec 50 1 1meg\nmeas ac f3db …`
 */
export function prepareNetlist(agentNetlist: string, controlBody: string, measure: string): string {
  const lines = agentNetlist.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [lines[0] ?? '* (untitled)'];
  let inControl = false;
  let dropping = false;
  for (const line of lines.slice(1)) {
    const word = (line.trim().split(/\s+/)[0] ?? '').toLowerCase();
    if (inControl) {
      if (word === '.endc') inControl = false;
      continue;
    }
    if (word === '.control') {
      inControl = true;
      continue;
    }
    if (word === '.end') break;
    if (word.startsWith('+') && dropping) continue;
    dropping = STRIPPED.has(word);
    if (!dropping) out.push(line);
  }
  return [
    ...out,
    '.control',
    controlBody.trim(),
    `echo ${RESULTS_MARKER}`,
    `print ${measure}`,
    '.endc',
    '.end',
    '',
  ].join('\n');
}

/** A measurement read from ngspice's output, or why there is none. */
export type MeasureReading = { ok: true; value: number } | { ok: false; reason: string };

const NUM = String.raw`[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?`;

/** Reads `name = value` printed after the results marker; otherwise explains what went wrong. */
export function readMeasurement(stdout: string, stderr: string, measure: string): MeasureReading {
  const at = stdout.indexOf(RESULTS_MARKER);
  if (at < 0) {
    const err = firstError(stderr) ?? firstError(stdout);
    return {
      ok: false,
      reason: `the netlist did not simulate${err === undefined ? ' (ngspice stopped before the measurement)' : `: ${err}`}`,
    };
  }
  const re = new RegExp(String.raw`^\s*${escape(measure)}\s*=\s*(${NUM})\s*$`, 'im');
  const m = re.exec(stdout.slice(at));
  if (m !== null) {
    const value = Number(m[1]);
    if (Number.isFinite(value)) return { ok: true, value };
  }
  const why = measureError(stdout, stderr, measure) ?? firstError(stderr);
  return { ok: false, reason: `measurement ${measure} failed${why === undefined ? '' : `: ${why}`}` };
}

/** The first error ngspice reported, with the line or two after it (the offending netlist line). */
export function firstError(text: string): string | undefined {
  const lines = text.split('\n').map((l) => l.trim());
  const i = lines.findIndex((l) => /\berror\b/i.test(l) || /simulation interrupted/i.test(l));
  if (i < 0) return undefined;
  return lines
    .slice(i, i + 4)
    .filter((l) => l.length > 0 && !/^note:/i.test(l))
    .join(' ')
    .slice(0, 400);
}

function measureError(stdout: string, stderr: string, measure: string): string | undefined {
  const name = new RegExp(String.raw`\b${escape(measure)}\b`, 'i');
  const lines = `${stderr}\n${stdout}`.split('\n').map((l) => l.trim());
  return lines.find((l) => name.test(l) && /error|failed/i.test(l));
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
