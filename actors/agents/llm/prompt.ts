/**
 * The zero-shot protocol's fixed text: one system prompt per interface and the task text, the same
 * for every model and provider. Changing a word here changes every request body, so recorded
 * episodes no longer replay (`ReplayLlmAgent` reports the mismatch): bump `PROMPT_VERSION`.
 */
import type { Task } from '../../../tasks/index.js';

/** Version of the prompt text; recorded with each call so a replay can tell why bodies differ. */
export const PROMPT_VERSION = 1;

const COMMON = `Each round you receive an observation and answer with one or more tool calls. The calls of one answer run in order as one round; then you receive the next observation with their results. Text without a tool call is not executed and still uses up a round.
Call \`done\` when the deliverables are written and you have checked them: the work is then verified and the episode ends. Call \`fail\` if the task cannot be completed. Call \`done\` or \`fail\` alone, never together with other tools.
The number of rounds and the wall-clock time are limited; the observation tells you the current round.`;

const CLI = `You are an engineer working in Linux sandboxes through tools. You have no other access to the machine and no human to ask.
Use \`shell\` to run bash commands. Commands are non-interactive (no TTY, no editor sessions, no GUI); each starts in the workdir, so do not rely on \`cd\` or exported variables from earlier commands. Long outputs are cut: filter them. Write files with heredocs or scripts.
Use \`view_image\` to look at a PNG you produced (a render, a plot, a drawing export); it is shown to you with the next observation.
${COMMON}`;

const GUI = `You are an engineer operating desktop engineering software through computer-use tools. Each observation comes with a screenshot; coordinates are pixels of that screenshot, origin at the top left.
Act on what the latest screenshot shows; wait when the application is busy.
${COMMON}`;

/** The system prompt for a task's interface. */
export function systemPrompt(iface: 'cli' | 'gui'): string {
  return iface === 'cli' ? CLI : GUI;
}

/** The task as the model reads it: objective, sandboxes, deliverables and limits. */
export function taskText(task: Task): string {
  const sandboxes = Object.entries(task.environment.sandboxes)
    .map(([name, s], i) => `- ${name}${i === 0 ? ' (default)' : ''}: workdir ${s.workdir}`)
    .join('\n');
  const deliverables = task.deliverables
    .map((d) => `- ${d.path} (${d.format})${d.sandbox ? ` in sandbox ${d.sandbox}` : ''}`)
    .join('\n');
  const limits =
    task.interface === 'cli'
      ? `at most ${task.limits.max_rounds} rounds; each command times out after ${task.limits.action_timeout_sec} s; ${task.limits.wall_clock_sec} s in total`
      : `at most ${task.limits.max_rounds} rounds; ${task.limits.wall_clock_sec} s in total`;
  return `TASK: ${task.title}

${task.objective.trim()}

Sandboxes:
${sandboxes}
Deliverables (paths relative to the workdir):
${deliverables}
Limits: ${limits}.`;
}
