/**
 * Agent specs from the command line: `scripted` (the reference solution) and `scripted:<name>`
 * (a defect variant or an alternative valid solution of the task). LLM providers plug in here later.
 */
import type { LoadedTask } from '../../tasks/index.js';
import { AgentError } from './errors.js';
import { ScriptedAgent } from './scripted.js';
import type { Agent } from './types.js';

/** Checks a spec before anything starts; throws AgentError naming the problem. */
export function validateAgentSpec(spec: string): void {
  const [kind] = spec.split(':');
  if (kind !== 'scripted')
    throw new AgentError('AGENT_UNKNOWN', `unknown agent "${spec}": use "scripted" or "scripted:<defect>"`);
}

/** Builds the agent for one episode of `lt`. */
export function createAgent(spec: string, lt: LoadedTask): Agent {
  validateAgentSpec(spec);
  const defect = spec.slice('scripted:'.length);
  if (spec === 'scripted') return new ScriptedAgent(spec, lt.task.reference);
  const d = lt.defects[defect] ?? lt.alternatives[defect];
  if (!d) {
    const have = [...Object.keys(lt.defects), ...Object.keys(lt.alternatives)];
    throw new AgentError(
      'AGENT_DEFECT_MISSING',
      `task ${lt.task.id} has no defect or alternative "${defect}" (has: ${have.join(', ') || 'none'})`,
    );
  }
  return new ScriptedAgent(spec, d.actions);
}
