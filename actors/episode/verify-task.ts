/** The real `VerifyFn`: every criterion through the verifier registry, scored by the task's rule. */
import { taskScore, verifyAll } from '../../verifiers/index.js';
import type { VerifyFn } from './ports.js';

export const verifyTask: VerifyFn = async (lt, ctx) => {
  const verdicts = await verifyAll(
    {
      artifactsDir: ctx.artifactsDir,
      taskDir: lt.dir,
      runTool: ctx.runTool,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    },
    lt.task,
    ctx.seal ? { seal: ctx.seal } : {},
  );
  const score = taskScore(lt.task.scoring, verdicts);
  return { verdicts, score, passed: verdicts.length > 0 && verdicts.every((v) => v.passed) };
};
