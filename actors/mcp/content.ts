/** What tool calls return: a round's observation (text and images) or the episode's outcome. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { VerdictData } from '../../streams/index.js';
import type { AgentImage } from '../agents/index.js';
import type { EpisodeResult } from '../episode/index.js';
import type { Turn } from './bridge-agent.js';

/** Fetches the latest screenshot of the episode (GUI tasks), when the agent input carries none. */
export type ScreenshotSource = () => Promise<AgentImage | null>;

/** The verdicts as a plain-text table: criterion, verifier, pass/fail, score, reason. */
function verdictTable(verdicts: readonly VerdictData[]): string {
  if (verdicts.length === 0) return '(no verdicts)';
  const rows = [
    ['criterion', 'verifier', 'result', 'score', 'reason'],
    ...verdicts.map((v) => [
      v.criterion,
      v.verifier,
      v.passed ? 'pass' : 'FAIL',
      v.score.toFixed(3),
      v.reason,
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) => r.map((c, i) => (i < r.length - 1 ? c.padEnd(widths[i]!) : c)).join('  '))
    .join('\n');
}

/** The episode's outcome as the agent reads it: status, score, verdicts or the infrastructure fault. */
export function endText(r: EpisodeResult): string {
  const score =
    r.score === null ? 'not scored' : `score ${r.score.toFixed(3)}, ${r.passed ? 'passed' : 'not passed'}`;
  const head = `Episode ${r.episodeId} ended: status ${r.status}, ${score} (${r.rounds} round(s), ${(r.durationMs / 1000).toFixed(1)} s).`;
  const error = r.error ? `\nerror: ${r.error.code}: ${r.error.message}` : '';
  const verdicts = r.verdicts.length ? `\n\n${verdictTable(r.verdicts)}` : '';
  return head + error + verdicts;
}

/** An error tool result (`isError: true`) with one line of text. */
export function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/**
 * A turn as a tool result: the observation text plus its images (in a GUI task without images in
 * the input, the latest screenshot from `screenshot`), or the episode's outcome.
 */
export async function turnResult(t: Turn, screenshot?: ScreenshotSource): Promise<CallToolResult> {
  if (t.kind === 'ended') return { content: [{ type: 'text', text: endText(t.result) }] };
  const { input } = t;
  let images: readonly AgentImage[] = input.images ?? [];
  if (images.length === 0 && input.task.interface === 'gui' && screenshot) {
    // A missing screenshot must not cost the agent its observation text.
    const shot = await screenshot().catch(() => null);
    if (shot) images = [shot];
  }
  return {
    content: [
      { type: 'text', text: input.observation },
      ...images.map((img) => ({
        type: 'image' as const,
        data: img.data.toString('base64'),
        mimeType: img.mediaType,
      })),
    ],
  };
}
