/** Loading the tasks a run will play, with the checks every running command makes first. */
import { loadSuite, type SuiteLoad } from '../../tasks/index.js';
import { createAgent, validateAgentSpec } from '../agents/index.js';
import { verifierRules } from '../../verifiers/index.js';
import { CliExit, EXIT } from './exit.js';

/**
 * Loads `path` for agent `agent`: bad tasks are reported and skipped; an unknown agent, a missing
 * defect or alternative, or no valid task at all is bad input (exit 2) before anything starts.
 */
export async function loadRunTasks(
  path: string,
  agent: string,
  o: { historyWindow?: number } = {},
): Promise<SuiteLoad> {
  const bad = (e: unknown) => new CliExit(EXIT.BAD_INPUT, (e as Error).message);
  try {
    validateAgentSpec(agent);
  } catch (e) {
    throw bad(e);
  }
  const load = await loadSuite(path, { verifiers: verifierRules });
  for (const e of load.errors) console.error(`skipping invalid task: ${e.message}`);
  if (load.tasks.length === 0) throw new CliExit(EXIT.BAD_INPUT, `no valid task in ${path}`);
  // The agent's history window (EngiWorld: 15 rounds) overrides each task's own.
  if (o.historyWindow !== undefined) for (const lt of load.tasks) lt.task.history_window = o.historyWindow;
  try {
    for (const lt of load.tasks) createAgent(agent, lt);
  } catch (e) {
    throw bad(e);
  }
  return load;
}
