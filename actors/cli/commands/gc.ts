/**
 * `engiloop gc`: deletes the blobs (snapshots, outputs, screenshots, artifacts) the retention policy
 * no longer keeps (`streams/retention.ts`), and optionally caps the bucket's size.
 */
import type { Command } from 'commander';
import {
  collectGarbage,
  DEFAULT_RETENTION,
  REPORT_KINDS,
  type GcProgress,
  type GcReport,
} from '../../../streams/index.js';
import { CliExit, EXIT, onInterrupt, wholeNumber } from '../exit.js';
import { withStreams } from '../streams-env.js';
import { table } from '../table.js';

interface GcFlags {
  dryRun?: boolean;
  keepDays: string;
  expireDays: string;
  graceMinutes: string;
  maxBucketMb?: string;
  json?: boolean;
}

const POLICY = `
Policy (age = time since an episode's last event; its end once it ended):
  under --keep-days          every blob the episode references is kept (resume, fork, replay --execute)
  --keep-days..--expire-days kept: deliverables, stage artifacts, hand-offs, stage snapshots, the last
                             snapshot; deleted: other interval snapshots, stdout/stderr and observation
                             texts moved out of events, screenshots, view_image images, model exchanges
  over --expire-days         nothing is kept for it (its events stay: results and fold replays work)
A blob any episode keeps stays; so do the task tars of queued jobs. Blobs no event names are deleted,
and no blob written or touched within --grace-minutes is ever deleted (an episode's in-flight put).
The bucket has no max_age: an age limit would delete blobs live episodes share by content.

Exit codes: 0 done (or dry run), 2 bad flags, 3 NATS unreachable, an episode log unreadable (nothing
deleted) or deletions failed, 130 interrupted (what was deleted so far is reported).`;

export function gcCommand(program: Command): void {
  program
    .command('gc')
    .description(
      'delete blobs (snapshots, outputs, screenshots, artifacts) the retention policy no longer keeps',
    )
    .option('--dry-run', 'report what would be deleted, delete nothing')
    .option(
      '--keep-days <n>',
      'days after its last event an episode keeps every blob',
      String(DEFAULT_RETENTION.keepDays),
    )
    .option(
      '--expire-days <n>',
      'days after its last event an episode keeps none',
      String(DEFAULT_RETENTION.expireDays),
    )
    .option(
      '--grace-minutes <n>',
      'never delete a blob written or touched this recently',
      String(DEFAULT_RETENTION.graceMs / 60_000),
    )
    .option(
      '--max-bucket-mb <n>',
      "also set the bucket's byte cap in MiB (0 removes it): past it puts fail, nothing stored is lost",
    )
    .option('--json', 'the report as JSON')
    .addHelpText('after', POLICY)
    .action(async (f: GcFlags) => {
      const keepDays = wholeNumber('keep-days', f.keepDays, 0);
      const expireDays = wholeNumber('expire-days', f.expireDays, 0);
      const graceMs = wholeNumber('grace-minutes', f.graceMinutes, 0) * 60_000;
      if (expireDays < keepDays)
        throw new CliExit(
          EXIT.BAD_INPUT,
          `--expire-days (${expireDays}) must be ≥ --keep-days (${keepDays})`,
        );
      const capMb = f.maxBucketMb === undefined ? undefined : wholeNumber('max-bucket-mb', f.maxBucketMb, 0);
      await withStreams(async (s) => {
        const interrupt = onInterrupt('stopping the sweep');
        const progress = progressLine();
        let report: GcReport;
        try {
          report = await collectGarbage(s.log, s.blobs, {
            policy: { keepDays, expireDays, graceMs },
            dryRun: f.dryRun ?? false,
            onProgress: progress.update,
            signal: interrupt.signal,
          });
        } catch (e) {
          throw new CliExit(EXIT.ENV, `gc stopped, nothing was deleted: ${(e as Error).message}`);
        } finally {
          progress.close();
          interrupt.dispose();
        }
        if (capMb !== undefined && !f.dryRun)
          await s.blobs.setMaxBytes(s.log.jsm, capMb === 0 ? -1 : capMb * 1024 * 1024);
        const bucket = await s.blobs.limits();
        if (f.json) console.log(JSON.stringify({ ...report, bucket }, null, 2));
        else console.log(render(report, bucket, f.dryRun && capMb !== undefined ? capMb : undefined));
        for (const x of report.failed) console.error(`engiloop: could not delete ${x.digest}: ${x.message}`);
        process.exitCode = report.interrupted ? 130 : report.failed.length ? EXIT.ENV : EXIT.OK;
      });
    });
}

/** The human report. */
function render(
  r: GcReport,
  bucket: { bytes: number; maxBytes: number; maxAgeMs: number },
  wouldCapMb: number | undefined,
): string {
  const p = r.policy;
  const head = `${r.dryRun ? 'dry run, nothing deleted' : 'gc'}: keep ${p.keepDays} d, expire ${p.expireDays} d, grace ${p.graceMs / 60_000} min (${new Date(r.at).toISOString()})`;
  const e = r.episodes;
  const eps = `episodes: ${e.live + e.analysis + e.expired} (${e.live} live, ${e.analysis} analysis, ${e.expired} expired; ${e.open} not ended); queued jobs: ${r.jobs}`;
  const gone = r.dryRun ? 'would delete' : 'deleted';
  const rows = REPORT_KINDS.filter((k) => r.kept[k] || r.deleted[k]).map((k) => [
    k,
    String(r.kept[k]?.objects ?? 0),
    fmtBytes(r.kept[k]?.bytes ?? 0),
    String(r.deleted[k]?.objects ?? 0),
    fmtBytes(r.deleted[k]?.bytes ?? 0),
  ]);
  const t = r.totals;
  rows.push([
    'total',
    String(t.kept.objects),
    fmtBytes(t.kept.bytes),
    String(t.deleted.objects),
    fmtBytes(t.deleted.bytes),
  ]);
  const notes = [
    r.grace.objects
      ? `${r.grace.objects} object(s) (${fmtBytes(r.grace.bytes)}) kept only for being within the grace period`
      : '',
    r.missing ? `${r.missing} kept reference(s) name blobs not in the bucket` : '',
    r.foreign ? `${r.foreign} object(s) not named by a digest left alone` : '',
    r.interrupted ? 'interrupted: the sweep did not finish' : '',
    `bucket: ${fmtBytes(bucket.bytes)} stored; cap ${bucket.maxBytes < 0 ? 'none' : fmtBytes(bucket.maxBytes)}${wouldCapMb === undefined ? '' : ` (would set ${wouldCapMb ? `${wouldCapMb} MiB` : 'none'})`}; max_age ${bucket.maxAgeMs ? `${bucket.maxAgeMs} ms` : 'none'}`,
  ].filter(Boolean);
  return [head, eps, '', table(['kind', 'kept', 'bytes', gone, 'bytes'], rows), '', ...notes].join('\n');
}

function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) [v, u] = [v / 1024, u + 1];
  return `${v.toFixed(1)} ${units[u]}`;
}

/** Progress on stderr: redrawn in place on a terminal, else a line per phase and every 5 s. */
function progressLine(out: NodeJS.WriteStream = process.stderr) {
  let phase = '';
  let last = 0;
  let drawn = false;
  const what = {
    list: 'listing the bucket',
    scan: 'reading episodes',
    recheck: 're-reading open episodes',
    sweep: 'deleting',
  };
  return {
    update(p: GcProgress): void {
      const now = Date.now();
      const changed = p.phase !== phase;
      if (!changed && now - last < (out.isTTY ? 200 : 5_000) && p.done !== p.total) return;
      [phase, last] = [p.phase, now];
      const line = `gc: ${what[p.phase]}${p.total ? ` ${p.done}/${p.total}` : ''}`;
      if (out.isTTY) {
        out.write(`\r\x1b[2K${line}`);
        drawn = true;
      } else out.write(`${line}\n`);
    },
    close(): void {
      if (drawn) out.write('\r\x1b[2K');
    },
  };
}
