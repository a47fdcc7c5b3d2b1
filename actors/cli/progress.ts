/**
 * Live progress per episode (round, last action, elapsed) on stderr. On a terminal the block is
 * redrawn in place; otherwise a line is printed when an episode changes state or round.
 */
import { escapeForTerminal } from '../terminal.js';
import type { EpisodeProgress } from '../episode/index.js';
import { fmtMs } from './table.js';

export class ProgressView {
  private readonly rows = new Map<string, EpisodeProgress>();
  private readonly lastLine = new Map<string, string>();
  private drawn = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly out: NodeJS.WriteStream = process.stderr) {
    if (this.out.isTTY) this.timer = setInterval(() => this.draw(), 200);
  }

  update(p: EpisodeProgress): void {
    this.rows.set(p.episodeId, p);
    if (this.out.isTTY) return;
    const key = `${p.state}:${p.round}`;
    if (this.lastLine.get(p.episodeId) === key) return;
    this.lastLine.set(p.episodeId, key);
    this.out.write(`${this.line(p)}\n`);
  }

  private line(p: EpisodeProgress): string {
    const act = p.lastAction ? `  last: ${escapeForTerminal(p.lastAction)}` : '';
    return `[${p.taskId}] ${p.state.padEnd(11)} round ${p.round}/${p.maxRounds}  ${fmtMs(p.elapsedMs).padStart(8)}${act}`;
  }

  private draw(): void {
    const width = this.out.columns ?? 120;
    const lines = [...this.rows.values()].map((p) => this.line(p).slice(0, width - 1));
    if (this.drawn > 0) this.out.write(`\x1b[${this.drawn}A`);
    for (const l of lines) this.out.write(`\x1b[2K${l}\n`);
    this.drawn = lines.length;
  }

  /** Final draw and stop. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.out.isTTY) this.draw();
  }
}
