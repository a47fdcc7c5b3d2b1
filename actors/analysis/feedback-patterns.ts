/** Loads `feedback-patterns.yaml` (the tool feedback the detectors look for) once, checked. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { packageRoot } from '../paths.js';

const Pattern = z.object({
  kind: z.enum(['error', 'warning', 'divergence', 'violation']),
  regex: z.string(),
});
const File = z.object({
  version: z.literal(1),
  apps: z.array(z.object({ app: z.string(), commands: z.string(), patterns: z.array(Pattern).min(1) })),
});

/** One app's feedback, compiled. */
export interface AppFeedback {
  app: string;
  commands: RegExp;
  patterns: { kind: z.infer<typeof Pattern>['kind']; regex: RegExp }[];
}

let cache: AppFeedback[] | undefined;

/** The path of the data file. */
const FEEDBACK_PATTERNS_FILE = join('actors', 'analysis', 'feedback-patterns.yaml');

/**
 * The patterns of `feedback-patterns.yaml`, compiled (case-insensitive, multi-line).
 * @throws Error naming the file and the field when the file is not valid.
 */
export function feedbackPatterns(): AppFeedback[] {
  if (cache) return cache;
  const file = join(packageRoot(), FEEDBACK_PATTERNS_FILE);
  const parsed = File.safeParse(parse(readFileSync(file, 'utf8')));
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new Error(`${file}: ${i.path.join('.')}: ${i.message}`);
  }
  const re = (s: string, where: string) => {
    try {
      return new RegExp(s, 'im');
    } catch (e) {
      throw new Error(`${file}: ${where}: not a valid regular expression (${(e as Error).message})`);
    }
  };
  return (cache = parsed.data.apps.map((a, i) => ({
    app: a.app,
    commands: re(a.commands, `apps.${i}.commands`),
    patterns: a.patterns.map((p, j) => ({
      kind: p.kind,
      regex: re(p.regex, `apps.${i}.patterns.${j}.regex`),
    })),
  })));
}
