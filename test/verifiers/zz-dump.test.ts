import path from 'node:path';
import { it } from 'vitest';
import { loadTask } from '../../tasks/index.js';
import { criterionProblem, taskScore, verifyAll } from '../../verifiers/index.js';
import { contextFor, playSolution, tempDir, toolKit } from '../helpers/artifacts.js';
it('dump', async () => {
  await using kit = toolKit('dump');
  for (const id of ['openscad-plate', 'ngspice-rc-lowpass', 'verilog-counter']) {
    const t = await loadTask(path.resolve('tasks/starter', id), { checkCriterion: criterionProblem });
    for (const [name, steps] of [['reference', t.task.reference], ...Object.entries(t.defects).map(([n, d]) => [n, d.actions])] as const) {
      await using art = await tempDir('d');
      await playSolution(kit, steps as never, t.task.deliverables.map((d) => d.path), art.path);
      const v = await verifyAll(contextFor(kit, art.path, t.dir), t.task);
      console.log(`### ${id} / ${name}: score ${taskScore(t.task.scoring, v)}`);
      for (const x of v) console.log(`  ${x.criterion} [${x.role}] ${x.passed ? 'PASS' : 'FAIL'} ${x.score.toFixed(3)} measured=${JSON.stringify(x.measured)} :: ${x.reason}`);
    }
  }
});
