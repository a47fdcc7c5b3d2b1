/**
 * Terminal views escape control characters from sandbox and model output. A committed episode log
 * has an agent's hostile text put into its command, model output, stdout, stderr, observation,
 * verdict reason and agent name (digests recomputed, so it still folds); every view, as a function
 * and as the real `engiloop` process (against a nats-server of its own), must print it with no raw
 * ESC, CR, BEL, backspace, C1 or bidi control, and `--json` must still be the exact data.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { table } from '../../actors/cli/table.js';
import { resultFromLog, snapshotDigest } from '../../actors/episode/index.js';
import { provenance, renderDot, renderProvenance } from '../../actors/provenance/index.js';
import { buildTimeline, renderRound, renderSummary, summarizeEvent } from '../../actors/replay/index.js';
import { summarize } from '../../actors/run/index.js';
import { escapeForTerminal, jsonForTerminal } from '../../actors/terminal.js';
import { applyEvent, initialSnapshot, type FoldedSnapshot } from '../../machines/index.js';
import { decodeEvent, encodeEvent, EpisodeLog, RunIndex, type EpisodeEvent } from '../../streams/index.js';
import { cli } from '../helpers/cli.js';
import { startTestNats, type TestNats } from '../helpers/nats.js';

/** Retitles the window, rings, clears the screen, returns the cursor; then C1 CSI, backspace, RLO. */
const HOSTILE = '\x1b]0;pwned\x07\x1b[2J\r\u009b31m\b\u202egnp.exe\u2066';
/** Any character a terminal may act on, but newline and tab. */
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const FIXTURE = join(import.meta.dirname, '../fixtures/episodes/openscad-plate.v3.b64');

/** Asserts `out` holds no raw control character and shows the hostile text escaped. */
function safe(out: string, what: string): void {
  const at = RAW.exec(out);
  expect(at, `${what}: raw U+${at?.[0].charCodeAt(0).toString(16)} at ${at?.index}`).toBeNull();
  expect(out, what).toContain('\\x1b]0;pwned\\x07');
}

/** The fixture with HOSTILE in every agent-written field, refolded so its digests match again. */
async function hostileLog(): Promise<EpisodeEvent[]> {
  const lines = (await readFile(FIXTURE, 'utf8')).trim().split('\n');
  const events = lines.map((l) => decodeEvent(Buffer.from(l, 'base64')));
  const cmd = `openscad -o part.stl part.scad && ls -l part.stl; printf '${HOSTILE}'`;
  for (const e of events) {
    if (e.type === 'episode.started') e.agent = `mcp:evil${HOSTILE}`;
    if (e.type === 'agent.decided' && e.round === 2) {
      e.raw = { actions: [{ type: 'shell', command: cmd }], text: `thinking ${HOSTILE}` };
      e.decision = { kind: 'act', actions: [{ type: 'shell', command: cmd }] };
    }
    if (e.type === 'action.started' && e.round === 2) e.action = { type: 'shell', command: cmd };
    if (e.type === 'action.executed' && e.round === 2) {
      e.action = { type: 'shell', command: cmd };
      e.result.stdout += HOSTILE;
      e.result.stderr = `${HOSTILE}\n${e.result.stderr}`;
    }
    if (e.type === 'observation.recorded' && e.round === 3) e.text += `\n${HOSTILE}`;
    if (e.type === 'verification.completed') e.verdicts[0]!.reason += HOSTILE;
  }
  let snap: FoldedSnapshot = initialSnapshot();
  for (const e of events) {
    if (e.type === 'agent.decided') e.stateDigest = snapshotDigest(snap);
    if (e.type === 'episode.ended') e.snapshotDigest = snapshotDigest(snap);
    snap = applyEvent(snap, e);
  }
  return events;
}

describe('escapeForTerminal', () => {
  it('shows every control character as a visible escape and leaves printable text alone', () => {
    expect(escapeForTerminal(HOSTILE)).toBe(
      '\\x1b]0;pwned\\x07\\x1b[2J\\r\\x9b31m\\x08\\u202egnp.exe\\u2066',
    );
    expect(escapeForTerminal('a\tb\nc')).toBe('a\\tb\\nc');
    expect(escapeForTerminal('a\tb\nc\r', { multiline: true })).toBe('a\tb\nc\\r');
    for (const c of ['\u202a', '\u202d', '\u2067', '\u2069', '\u200f', '\u061c', '\x7f', '\x00'])
      expect(RAW.test(escapeForTerminal(c, { multiline: true })), escape(c)).toBe(false);
    expect(escapeForTerminal('\ud800x')).toBe('\\ud800x');
    const plain = 'printf "%s\\n" héllo — 日本 😀 C:\\dir';
    expect(escapeForTerminal(plain)).toBe(plain);
    expect(escapeForTerminal(escapeForTerminal(HOSTILE))).toBe(escapeForTerminal(HOSTILE));
  });

  it('jsonForTerminal is the same JSON value with C1 and bidi controls escaped too', () => {
    const v = { s: HOSTILE, n: [1, '\u2028'] };
    const j = jsonForTerminal(v, 2);
    expect(RAW.test(j.replaceAll('\n', ''))).toBe(false);
    expect(JSON.parse(j)).toEqual(v);
  });
});

describe('terminal views of a hostile episode', () => {
  let events: EpisodeEvent[];
  let dir: string;
  let file: string;
  let nats: TestNats;
  const episodeId = 'rescape01-openscad-plate-1';
  const runId = 'rescape01';

  beforeAll(async () => {
    events = await hostileLog();
    dir = await mkdtemp(join(tmpdir(), 'engiloop-escape-'));
    file = join(dir, 'hostile.b64');
    await writeFile(
      file,
      events.map((e) => Buffer.from(encodeEvent(e)).toString('base64')).join('\n') + '\n',
    );
    nats = await startTestNats();
    const log = await EpisodeLog.open(nats.nc);
    const w = log.writer(episodeId);
    for (const e of events) await w.append({ ...e, ...(e.type === 'episode.started' ? { episodeId } : {}) });
    const runs = await RunIndex.open(nats.nc);
    await runs.start(runId, {
      suite: 'tasks',
      agent: `mcp:evil${HOSTILE}`,
      episodes: [episodeId],
      startedAt: 1,
    });
    const result = { ...resultFromLog(events)!, episodeId };
    const failed = { ...result, passed: false, error: { code: 'X', message: `boom ${HOSTILE}` } };
    await runs.finish(runId, { results: [result, failed], summary: summarize([result, failed]) });
  });
  afterAll(async () => {
    await nats?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('the log still folds, and its text really holds the raw characters', () => {
    const tl = buildTimeline(events);
    expect(tl.rounds).toHaveLength(3);
    expect(tl.rounds[1]!.actions[0]!.result.stdout).toContain(HOSTILE);
  });

  it('every view function escapes them', () => {
    const tl = buildTimeline(events);
    const summaries = events.map(summarizeEvent).join('\n');
    safe(summaries, 'summarizeEvent');
    for (let i = 0; i < tl.rounds.length; i++)
      expect(RAW.test(renderRound(tl, i)), `round ${i + 1}`).toBe(false);
    safe(renderRound(tl, 1), 'renderRound 2');
    safe(renderRound(tl, 2), 'renderRound 3');
    safe(renderSummary(tl), 'renderSummary');
    safe(table(['a', 'b'], [['x', HOSTILE]]), 'table');
    safe(renderProvenance(provenance(events)), 'renderProvenance');
    expect(RAW.test(renderDot(provenance(events)))).toBe(false);
  });

  it('engiloop replay: --list, --round and --json', async () => {
    const list = await cli(['replay', '--file', file, '--list']);
    expect(list.code, list.stderr).toBe(0);
    safe(list.stdout, 'replay --list');
    for (const n of ['2', '3']) {
      const r = await cli(['replay', '--file', file, '--round', n]);
      expect(r.code, r.stderr).toBe(0);
      safe(r.stdout, `replay --round ${n}`);
    }
    const j = await cli(['replay', '--file', file, '--json']);
    expect(j.code, j.stderr).toBe(0);
    expect(RAW.test(j.stdout.replaceAll('\n', ''))).toBe(false);
    const parsed = JSON.parse(j.stdout) as { rounds: { actions: { result: { stdout: string } }[] }[] };
    expect(parsed.rounds[1]!.actions[0]!.result.stdout).toContain(HOSTILE);
  });

  it('engiloop provenance', async () => {
    const r = await cli(['provenance', '--file', file]);
    expect(r.code, r.stderr).toBe(0);
    safe(r.stdout, 'provenance');
    const dot = await cli(['provenance', '--file', file, '--dot']);
    expect(RAW.test(dot.stdout)).toBe(false);
  });

  it('engiloop events, results and runs, from NATS', async () => {
    const env = { NATS_URL: nats.url };
    const t = await cli(['events', episodeId], env);
    expect(t.code, t.stderr).toBe(0);
    safe(t.stdout, 'events');
    const j = await cli(['events', episodeId, '--json'], env);
    expect(j.code, j.stderr).toBe(0);
    expect(RAW.test(j.stdout.replaceAll('\n', ''))).toBe(false);
    const lines = j.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as EpisodeEvent & { seq: number });
    const ex = lines.find((e) => e.type === 'action.executed' && e.round === 2);
    expect(ex?.type === 'action.executed' && ex.result.stdout.endsWith(HOSTILE)).toBe(true);

    const res = await cli(['results', runId], env);
    expect(res.code, res.stderr).toBe(0);
    safe(res.stdout, 'results');
    const rj = await cli(['results', runId, '--json'], env);
    expect(RAW.test(rj.stdout.replaceAll('\n', ''))).toBe(false);
    expect(JSON.stringify(JSON.parse(rj.stdout))).toContain('boom \\u001b]0;pwned');

    const runs = await cli(['runs'], env);
    expect(runs.code, runs.stderr).toBe(0);
    expect(RAW.test(runs.stdout.replaceAll('\n', ''))).toBe(false);
    expect(runs.stdout).toContain('mcp:evil\\x1b]0;pwned');
  });
});
