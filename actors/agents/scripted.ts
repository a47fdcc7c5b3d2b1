/**
 * The scripted agent plays a solution one round per step (a step is an action or a batch), then says
 * DONE. `scripted` plays the task's reference solution; `scripted:<defect>` plays a defect variant.
 */
import type { SolutionStep } from '../../tasks/index.js';
import type { Agent, AgentInput } from './types.js';

export class ScriptedAgent implements Agent {
  readonly name: string;
  private readonly steps: readonly SolutionStep[];

  constructor(name: string, steps: readonly SolutionStep[]) {
    this.name = name;
    this.steps = steps;
  }

  decide(input: AgentInput): Promise<unknown> {
    const s = this.steps[input.round - 1];
    if (s === undefined) return Promise.resolve({ done: true });
    return Promise.resolve({ actions: Array.isArray(s) ? s : [s] });
  }
}
