/** `engiloop tasks list|validate [dir]` and `engiloop schema`. */
import type { Command } from 'commander';
import { formatProblem, loadSuite, taskJsonSchema } from '../../../tasks/index.js';
import { criterionJsonSchemas, verifierRules } from '../../../verifiers/index.js';
import { EXIT } from '../exit.js';
import { table } from '../table.js';

/** Adds `tasks list`, `tasks validate` and `schema`; returns `tasks` for its other subcommands. */
export function tasksCommands(program: Command): Command {
  const tasks = program.command('tasks').description('list and validate task folders');
  tasks
    .command('list')
    .description('list the tasks of a suite folder')
    .argument('[dir]', 'task or suite folder', 'tasks')
    .option('--json', 'machine-readable output')
    .action(async (dir: string, o: { json?: boolean }) => {
      const { tasks: loaded, errors } = await loadSuite(dir, { verifiers: verifierRules });
      if (o.json)
        console.log(
          JSON.stringify(
            loaded.map((l) => ({ ...l.task, dir: l.dir, defects: Object.keys(l.defects) })),
            null,
            2,
          ),
        );
      else
        console.log(
          table(
            ['id', 'domain', 'type', 'interface', 'scoring', 'max rounds', 'criteria', 'defects'],
            loaded.map(({ task: t, defects }) => [
              t.id,
              t.domain,
              t.type,
              t.interface,
              t.scoring,
              String(t.limits.max_rounds),
              String(t.criteria.length),
              Object.keys(defects).join(', '),
            ]),
          ),
        );
      for (const e of errors) console.error(`invalid: ${e.message}`);
      process.exitCode = errors.length ? EXIT.BAD_INPUT : EXIT.OK;
    });
  tasks
    .command('validate')
    .description(
      'check every task.yaml and variant of a folder: the schema, verifier params (unknown keys too), sandboxes, stages, hidden files; exit 2 on any problem',
    )
    .argument('[dir]', 'task or suite folder', 'tasks')
    .addHelpText(
      'after',
      '\nEvery problem is printed as `file: field: message`. Exit codes: 0 all valid, 2 a problem.',
    )
    .action(async (dir: string) => {
      const { tasks: loaded, errors } = await loadSuite(dir, { verifiers: verifierRules });
      for (const l of loaded)
        console.log(`ok       ${l.task.id} (${Object.keys(l.defects).length} defect variant(s))`);
      for (const e of errors) for (const p of e.problems) console.error(`invalid  ${formatProblem(p)}`);
      console.log(`${loaded.length} valid, ${errors.length} invalid`);
      process.exitCode = errors.length ? EXIT.BAD_INPUT : EXIT.OK;
    });
  program
    .command('schema')
    .description(
      "print the JSON Schema of task.yaml (for editors): a criterion's params are checked against the verifier it names",
    )
    .action(() => console.log(JSON.stringify(taskJsonSchema(criterionJsonSchemas()), null, 2)));
  return tasks;
}
