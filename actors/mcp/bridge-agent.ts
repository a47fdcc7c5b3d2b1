/**
 * An agent whose decisions come from MCP tool calls. The episode runner calls `decide()` as for
 * any agent; the promise stays open until a tool handler `submit()`s a raw output, and the handler
 * in turn waits for the runner's next `decide()` input (the observation after its action) or the
 * episode's end. So every tool call that acts is one recorded round, and the runner is unchanged.
 */
import { AgentError, type Agent, type AgentInput } from '../agents/index.js';
import type { EpisodeResult } from '../episode/index.js';

/** What a tool call is answered with: the observation of the round to decide, or the episode's end. */
export type Turn = { kind: 'input'; input: AgentInput } | { kind: 'ended'; result: EpisodeResult };

/**
 * The bridge between the runner (`decide`) and the MCP tool handlers (`observe`, `submit`).
 * One decision at a time: the server lets one tool call through at once.
 *
 * @example
 * ```ts
 * const agent = new McpBridgeAgent();
 * const result = runEpisode(lt, deps, { ...opts, agent }).then((r) => (agent.end(r), r));
 * const first = await agent.observe(); // round 1's observation
 * const next = await agent.submit({ actions: [{ type: 'shell', command: 'ls' }] });
 * ```
 */
export class McpBridgeAgent implements Agent {
  #client: string | undefined;
  /** The input of the `decide()` call the runner is waiting on, and how to answer it. */
  #pending: { input: AgentInput; answer: (raw: unknown) => void } | null = null;
  #waiters: ((t: Turn) => void)[] = [];
  #ended: EpisodeResult | null = null;

  /** `mcp:<client name>` once the client is known (set before the episode starts), else `mcp`. */
  get name(): string {
    return this.#client ? `mcp:${this.#client}` : 'mcp';
  }

  /**
   * Records the MCP client's name (from its `initialize` request) for the agent name: the client
   * chooses it, so control and format characters (escape sequences, bidi overrides) are dropped
   * and it is cut at 64 characters.
   */
  setClient(name: string | undefined): void {
    this.#client = [...(name ?? '').replace(/\p{C}/gu, '')].slice(0, 64).join('').trim() || undefined;
  }

  /** The result once the episode has ended, else null. */
  get ended(): EpisodeResult | null {
    return this.#ended;
  }

  /** Called by the runner: waits for the next tool call's decision; rejects when the run is aborted. */
  decide(input: AgentInput): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const { signal } = input;
      const onAbort = () => {
        this.#pending = null;
        reject(new AgentError('ABORTED', 'the MCP session was interrupted while the agent was deciding'));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending = {
        input,
        answer: (raw) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(raw);
        },
      };
      this.#wake({ kind: 'input', input });
    });
  }

  /** The round awaiting a decision now, else the next one (or the end): never spends a round. */
  observe(): Promise<Turn> {
    if (this.#ended) return Promise.resolve({ kind: 'ended', result: this.#ended });
    if (this.#pending) return Promise.resolve({ kind: 'input', input: this.#pending.input });
    return this.#next();
  }

  /**
   * Answers the runner's pending `decide()` with `raw` (waiting first for it to ask, e.g. while the
   * sandbox is still being provisioned) and resolves with the following turn.
   */
  async submit(raw: unknown): Promise<Turn> {
    const now = await this.observe();
    if (now.kind === 'ended') return now;
    const pending = this.#pending!;
    this.#pending = null;
    const next = this.#next(); // registered before answering, so the next input cannot be missed
    pending.answer(raw);
    return next;
  }

  /** Called when `runEpisode` has returned: every waiting tool call gets the result. */
  end(result: EpisodeResult): void {
    this.#ended = result;
    this.#pending = null;
    this.#wake({ kind: 'ended', result });
  }

  #next(): Promise<Turn> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #wake(t: Turn): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w(t);
  }
}
