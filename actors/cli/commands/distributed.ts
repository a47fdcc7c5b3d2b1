/**
 * Scale-out: `engiloop submit` queues one job per episode on JetStream and prints the run id;
 * `engiloop worker` (any number, on any machines pointed at the same NATS) runs them;
 * `engiloop status <run>` shows progress; `engiloop nats status|stop` manages the local server.
 */
import { MAX_HISTORY_WINDOW } from '../../../tasks/index.js';
import { hostname } from 'node:os';
import type { Command } from 'commander';
import { JobQueue, localNatsStatus, stopLocalNats } from '../../../streams/index.js';
import { failureModesOf } from '../../analysis/index.js';
import { episodeDeps } from '../../episode/index.js';
import { engiloopHome } from '../../paths.js';
import { newRunId, planEpisodes } from '../../run/index.js';
import { DockerSandboxProvider } from '../../sandbox/index.js';
import { packTask, runProgress, runWorker } from '../../worker/index.js';
import { CliExit, EXIT, onInterrupt, wholeNumber } from '../exit.js';
import { loadRunTasks } from '../run-tasks.js';
import { ProgressView } from '../progress.js';
import { localNatsDir, withStreams } from '../streams-env.js';
import { fmtMs, table } from '../table.js';

export function distributedCommands(program: Command): void {
  program
    .command('submit')
    .description('queue one job per episode on JetStream and print the run id (workers run them)')
    .argument('<path>', 'task folder or suite folder')
    .option(
      '-a, --agent <spec>',
      'agent: "scripted" (the reference), "scripted:<defect|alternative>", "openai:<model>" or "anthropic:<model>"',
      'scripted',
    )
    .option('-r, --repeat <k>', 'episodes per task', '1')
    .option('--history-window <n>', "rounds of history the agent sees (default: the task's, 15 unless set)")
    .action(async (path: string, f: { agent: string; repeat: string; historyWindow?: string }) => {
      const repeat = wholeNumber('repeat', f.repeat);
      const historyWindow =
        f.historyWindow === undefined
          ? undefined
          : wholeNumber('history-window', f.historyWindow, 1, MAX_HISTORY_WINDOW);
      const { tasks, errors } = await loadRunTasks(
        path,
        f.agent,
        historyWindow === undefined ? {} : { historyWindow },
      );
      await withStreams(async (s) => {
        const queue = await JobQueue.open(s.nc);
        const runId = newRunId();
        const blobs = new Map<string, string>();
        for (const lt of tasks) blobs.set(lt.task.id, await s.blobs.put(await packTask(lt.dir)));
        const plan = planEpisodes(runId, tasks, repeat);
        await s.runs.start(runId, {
          suite: path,
          agent: f.agent,
          episodes: plan.map((p) => p.episodeId),
          startedAt: Date.now(),
        });
        for (const p of plan)
          await queue.submit({
            v: 1,
            runId,
            episodeId: p.episodeId,
            taskId: p.lt.task.id,
            agent: f.agent,
            taskBlob: blobs.get(p.lt.task.id)!,
            ...(historyWindow === undefined ? {} : { historyWindow }),
          });
        console.error(
          `queued ${plan.length} episode(s) on ${s.where}; follow with: engiloop status ${runId} --watch`,
        );
        console.log(runId);
        process.exitCode = errors.length ? EXIT.BAD_INPUT : EXIT.OK;
      });
    });

  program
    .command('worker')
    .description('pull episode jobs from JetStream and run them; resumes episodes whose worker died')
    .option('-c, --concurrency <n>', 'episodes at once', '1')
    .option('--ack-wait <sec>', 'seconds without a heartbeat before a job goes to another worker', '30')
    .option('--max-deliver <n>', 'deliveries of a job before it is given up (a poison job)', '20')
    .option('--idle-exit <sec>', 'exit after this long without a job (default: run until Ctrl-C)')
    .addHelpText(
      'after',
      '\nCtrl-C: stop taking jobs and finish the running episodes; twice: quit now (they resume elsewhere).',
    )
    .action(async (f: { concurrency: string; ackWait: string; maxDeliver: string; idleExit?: string }) => {
      const concurrency = wholeNumber('concurrency', f.concurrency);
      const ackWaitMs = wholeNumber('ack-wait', f.ackWait) * 1000;
      await withStreams(async (s) => {
        const interrupt = onInterrupt('stopping: no new jobs; finishing the running episodes');
        try {
          const provider = new DockerSandboxProvider();
          await provider.removeOrphans().catch(() => 0);
          const queue = await JobQueue.open(s.nc, {
            ackWaitMs,
            maxDeliver: wholeNumber('max-deliver', f.maxDeliver),
          });
          console.error(`worker ${hostname()}:${process.pid} on ${s.where}, concurrency ${concurrency}`);
          const view = new ProgressView();
          const done = await runWorker(
            {
              queue,
              log: s.log,
              blobs: s.blobs,
              runs: s.runs,
              summaries: s.summaries,
              home: engiloopHome(),
              // The worker positions its own log writer per job.
              deps: {
                ...episodeDeps({ log: s.log, blobs: s.blobs, provider }),
                failureModes: failureModesOf,
              },
            },
            {
              concurrency,
              heartbeatMs: Math.max(500, Math.floor(ackWaitMs / 3)),
              signal: interrupt.signal,
              ...(f.idleExit ? { idleExitMs: wholeNumber('idle-exit', f.idleExit, 0) * 1000 } : {}),
              onProgress: (p) => view.update(p),
              onEpisode: (r, delivery) =>
                console.error(
                  `${r.episodeId}: ${r.status}, score ${r.score ?? '—'}, ${r.rounds} rounds${delivery > 1 ? ` (delivery ${delivery})` : ''}`,
                ),
              log: (l) => console.error(l),
            },
          );
          view.close();
          console.error(`worker done: ${done} job(s)`);
        } finally {
          interrupt.dispose();
        }
      });
    });

  program
    .command('status')
    .description("show a run's progress: each episode's state, and the queue")
    .argument('<run>', 'run id')
    .option('-w, --watch', 'refresh every second until every episode has ended')
    .action(async (runId: string, f: { watch?: boolean }) => {
      await withStreams(async (s) => {
        const rec = await s.runs.get(runId);
        if (!rec) throw new CliExit(EXIT.BAD_INPUT, `no run "${runId}" (list them with: engiloop runs)`);
        const queue = await JobQueue.open(s.nc);
        for (;;) {
          const rows = await runProgress(s.log, rec.started.episodes);
          const q = await queue.pending();
          const ended = rows.filter((r) => r.ended).length;
          const out = `${table(
            ['episode', 'state', 'round'],
            rows.map((r) => [r.episodeId, r.state, r.round === null ? '' : String(r.round)]),
          )}\n\n${ended}/${rows.length} ended; queue: ${q.waiting} waiting, ${q.inProgress} held by workers; ${fmtMs(Date.now() - rec.started.startedAt)} since submit`;
          if (f.watch && process.stdout.isTTY) process.stdout.write('\x1b[2J\x1b[H');
          console.log(out);
          if (!f.watch || ended === rows.length) break;
          await new Promise((r) => setTimeout(r, 1000));
        }
      });
    });

  const nats = program
    .command('nats')
    .description('the local nats-server shared by engiloop commands on this machine');
  nats
    .command('status')
    .description('is the local server running, and where')
    .action(async () => {
      const st = await localNatsStatus(localNatsDir());
      console.log(
        st
          ? `running: pid ${st.pid}, ${st.url}, store ${localNatsDir()}`
          : `not running (store ${localNatsDir()})`,
      );
    });
  nats
    .command('stop')
    .description('stop the local server (the next engiloop command starts it again)')
    .action(async () => console.log((await stopLocalNats(localNatsDir())) ? 'stopped' : 'was not running'));
}
