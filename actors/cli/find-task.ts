/** The task folder of a recorded episode, for commands that re-run or re-verify it. */
import type { EpisodeEvent } from '../../streams/index.js';
import { loadSuite, type LoadedTask } from '../../tasks/index.js';
import { stableStringify } from '../episode/index.js';
import { CliExit, EXIT } from './exit.js';

/**
 * The task of `events` (its `episode.started`) found by id under `dir`; warns on stderr when the
 * folder's task.yaml differs from the one the log recorded.
 * @throws CliExit exit 2 when the log is not an episode or the task is not under `dir`.
 */
export async function findTask(dir: string, events: readonly EpisodeEvent[]): Promise<LoadedTask> {
  const started = events[0];
  if (started?.type !== 'episode.started')
    throw new CliExit(EXIT.BAD_INPUT, 'the log does not start with episode.started');
  const { tasks } = await loadSuite(dir);
  const lt = tasks.find((t) => t.task.id === started.task.id);
  if (!lt)
    throw new CliExit(
      EXIT.BAD_INPUT,
      `task "${started.task.id}" not found under ${dir} (give its suite with --tasks <dir>)`,
    );
  const { volatile: _a, ...now } = lt.task;
  const { volatile: _b, ...then } = started.task;
  if (stableStringify(now) !== stableStringify(then))
    console.error(
      `warning: ${lt.dir}/task.yaml differs from the task recorded in the log; replaying with the current folder`,
    );
  return lt;
}
