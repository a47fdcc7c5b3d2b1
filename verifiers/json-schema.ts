/**
 * JSON Schema of every registered verifier's params, for `engiloop schema`: a criterion is one of
 * `{ verifier: <name>, params: <that verifier's params> }`, so an editor completes and checks the
 * params of the verifier a criterion names, and flags a key no verifier param has.
 */
import { z } from 'zod';
import { listVerifiers } from './registry.js';

/** Marks every object schema closed (`additionalProperties: false`) unless it says otherwise. */
function close(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(close);
  if (typeof node !== 'object' || node === null) return node;
  const o: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) o[k] = close(v);
  if (o.type === 'object' && o.properties !== undefined && o.additionalProperties === undefined)
    o.additionalProperties = false;
  return o;
}

/**
 * One JSON Schema per registered verifier: `verifier` is the name, `params` that verifier's params
 * (as written in task.yaml: defaults optional).
 */
export function criterionJsonSchemas(): { verifier: string; description: string; params: unknown }[] {
  return listVerifiers().map((v) => {
    const { $schema: _s, ...params } = z.toJSONSchema(v.params, {
      io: 'input',
      unrepresentable: 'any',
    }) as Record<string, unknown>;
    return { verifier: v.name, description: v.description, params: close(params) };
  });
}
