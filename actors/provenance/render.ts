/**
 * Text and Graphviz views of a provenance graph (`engiloop provenance <episode> [--dot]`). Paths,
 * commands and verdict reasons come from the agent's work: control characters in them are shown
 * escaped (`escapeForTerminal`).
 */
import { escapeForTerminal } from '../terminal.js';
import type { ArtifactNode, ProvenanceGraph } from './graph.js';

const verdictText = (n: ArtifactNode) =>
  n.checks.length === 0
    ? 'not checked'
    : n.checks
        .map(
          (c) =>
            `${c.source}${c.round === null ? '' : ` @${c.round}`}: ${c.passed ? 'passed' : 'FAILED'} ${c.score.toFixed(3)}${
              c.passed
                ? ''
                : ` (${c.verdicts
                    .filter((v) => !v.passed)
                    .map((v) => `${v.criterion}: ${v.reason}`)
                    .join('; ')
                    .slice(0, 120)})`
            }`,
        )
        .join(' | ');

/** One block per artifact (producer, hand-offs out, verdicts), then where the chain broke. */
export function renderProvenance(g: ProvenanceGraph): string {
  const lines = [`Artifacts of episode ${g.episodeId} (task ${g.taskId}):`];
  if (g.parent)
    lines.push(
      `forked from episode ${g.parent.episodeId} at the end of round ${g.parent.round}: rounds 1–${g.parent.round} are its own (see engiloop provenance ${g.parent.episodeId})`,
    );
  for (const n of g.nodes) {
    const by = n.producedBy
      ? `round ${n.producedBy.round}${n.producedBy.index === null ? '' : `.${n.producedBy.index + 1}`}${n.producedBy.command ? ` (${n.producedBy.command})` : ''}`
      : 'unknown';
    lines.push(
      `● ${n.sandbox}:${n.path}  sha256 ${n.digest.slice(0, 12)}${n.final ? '  [deliverable]' : ''}`,
    );
    lines.push(`    made by ${by}${n.consumedBy.length ? `; read by stage ${n.consumedBy.join(', ')}` : ''}`);
    lines.push(`    ${verdictText(n)}`);
    for (const e of g.edges.filter((x) => x.from === n.id))
      lines.push(
        `    └─ handed off in round ${e.round} (${e.format}, ${e.bytes} bytes) → ${e.to.split('@')[0]}`,
      );
  }
  if (g.nodes.length === 0) lines.push('(no artifacts recorded)');
  const a = g.attribution;
  lines.push(
    '',
    a
      ? `Chain broke${a.stage ? ` at stage "${a.stage}"` : ''}${a.artifact ? ` on ${a.artifact}` : ''}: ${a.cause.replace('_', ' ')} — ${a.detail}`
      : 'Chain: no failure to attribute.',
  );
  return escapeForTerminal(lines.join('\n'), { multiline: true });
}

const q = (s: string) =>
  `"${escapeForTerminal(s, { multiline: true }).replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

/** Graphviz DOT: artifacts as boxes (green passed, red failed, grey unchecked), hand-offs as edges. */
export function renderDot(g: ProvenanceGraph): string {
  const out = [
    `digraph ${q(`episode ${g.episodeId}`)} {`,
    '  rankdir=LR;',
    '  node [shape=box, style=filled, fontname="monospace"];',
  ];
  const sandboxes = [...new Set(g.nodes.map((n) => n.sandbox))];
  for (const sb of sandboxes) {
    out.push(`  subgraph ${q(`cluster_${sb}`)} {`, `    label=${q(sb)};`);
    for (const n of g.nodes.filter((x) => x.sandbox === sb)) {
      const color =
        n.checks.length === 0 ? 'lightgrey' : n.checks.every((c) => c.passed) ? 'palegreen' : 'lightpink';
      const by = n.producedBy ? `round ${n.producedBy.round}` : '?';
      out.push(
        `    ${q(n.id)} [label=${q(`${n.path}\n${n.digest.slice(0, 12)}\n${by}`)}, fillcolor=${color}${n.final ? ', peripheries=2' : ''}];`,
      );
    }
    out.push('  }');
  }
  for (const e of g.edges) out.push(`  ${q(e.from)} -> ${q(e.to)} [label=${q(`handoff r${e.round}`)}];`);
  out.push('}');
  return out.join('\n');
}
