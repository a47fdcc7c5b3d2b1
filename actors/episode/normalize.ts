/**
 * Blanks the parts of observations that legitimately differ between two runs of the same actions,
 * so `replay --execute` compares what matters. Built in: durations, clock times and dates,
 * container ids, mktemp paths. Tasks add their own with `volatile:` regexes.
 */
const BUILT_IN: [RegExp, string][] = [
  [/\b\d+(\.\d+)?\s?(ms|s|sec|seconds)\b/g, '<dur>'],
  [/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?\b/g, '<time>'],
  [/\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+\d{1,2}\s+(\d{2}:\d{2}|\d{4})\b/g, '<date>'],
  [/\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b/g, '<clock>'],
  [/\b[0-9a-f]{64}\b|\b[0-9a-f]{12}\b/g, '<id>'],
  [/\/tmp\/tmp\.[A-Za-z0-9]+/g, '/tmp/<tmp>'],
];

/** Returns a normalizer applying the built-in rules and the task's `volatile` regexes. */
export function normalizer(volatile: readonly string[] = []): (text: string) => string {
  const extra = volatile.map((r) => [new RegExp(r, 'g'), '<volatile>'] as [RegExp, string]);
  const rules = [...extra, ...BUILT_IN];
  return (text) => rules.reduce((t, [re, sub]) => t.replace(re, sub), text);
}

/** The first differing line of two texts, with a line of context, as a small diff. */
export function firstDiff(a: string, b: string): string {
  const la = a.split('\n');
  const lb = b.split('\n');
  for (let i = 0; i < Math.max(la.length, lb.length); i++) {
    if (la[i] === lb[i]) continue;
    const ctx = i > 0 ? `  ${la[i - 1]}\n` : '';
    return `@@ line ${i + 1} @@\n${ctx}- ${la[i] ?? '(missing)'}\n+ ${lb[i] ?? '(missing)'}`;
  }
  return '';
}
