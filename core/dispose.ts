/**
 * `Symbol.asyncDispose`, guarded: the key of the `await using` cleanups of sandboxes, nats-servers
 * and test fixtures. Node 20.20 defines it natively (checked: `Symbol(nodejs.asyncDispose)`); older
 * 20.x lines may not, and then the registry symbol that TypeScript's helpers also look for is used.
 *
 * @example const handle = { [asyncDispose]: () => stop() }; // `await using h = handle;` calls stop()
 */
export const asyncDispose: typeof Symbol.asyncDispose =
  Symbol.asyncDispose ?? (Symbol.for('Symbol.asyncDispose') as typeof Symbol.asyncDispose);
