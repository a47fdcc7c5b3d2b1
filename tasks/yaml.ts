/**
 * Reads a task YAML file (task.yaml, a defect or an alternative) with bounded work, whatever is in
 * it. The `yaml` package alone is not enough: its duplicate-key check is quadratic (80 000 keys,
 * 790 KB, took 104 s), its composer recurses (about 800 nested `[` overflow the stack, and a
 * second parse in the same process then crashed Node), and an alias-heavy file ("billion laughs")
 * expands exponentially once zod walks the result. So:
 * 1. the size is checked with fstat before reading (at most {@link MAX_TASK_YAML_BYTES});
 * 2. the CST (yaml's iterative parser) is checked for nesting depth before the composer runs;
 * 3. on the composed document, duplicate keys are found with a set per mapping, and the number of
 *    nodes aliases add is counted (memoised, so a billion-laughs file costs milliseconds).
 */
import { Composer, isAlias, isMap, isScalar, isSeq, LineCounter, Parser, type CST, type Node } from 'yaml';
import { TaskLoadError } from './errors.js';
import { readCapped } from './files.js';
import { MAX_TASK_YAML_BYTES, MAX_YAML_ALIAS_NODES, sizeText } from './limits.js';

/** Deepest nesting of mappings and sequences (the task files of today nest 10 deep). */
const MAX_YAML_DEPTH = 64;

class YamlLimit extends Error {
  constructor(
    message: string,
    readonly offset?: number,
  ) {
    super(message);
  }
}

/** Deepest collection nesting of the CST tokens, walked with an explicit stack (no recursion). */
function cstDepth(tokens: readonly CST.Token[]): { depth: number; offset: number } {
  let max = { depth: 0, offset: 0 };
  const stack: [CST.Token | undefined | null, number][] = tokens.map((t) => [t, 0]);
  while (stack.length > 0) {
    const [t, d] = stack.pop()!;
    if (!t) continue;
    if (d > max.depth) max = { depth: d, offset: t.offset };
    if (t.type === 'document') stack.push([t.value, d]);
    else if (t.type === 'block-map' || t.type === 'block-seq' || t.type === 'flow-collection')
      for (const it of t.items) stack.push([it.value, d + 1], ['key' in it ? it.key : null, d + 1]);
  }
  return max;
}

/**
 * Checks keys and aliases of a composed document, in document order (an alias names the latest
 * anchor before it). Returns how many nodes the aliases add to the plain tree.
 */
function checkTree(root: unknown): number {
  const anchors = new Map<string, Node>();
  const sizes = new Map<Node, number>();
  const open = new Set<Node>();
  let added = 0;
  const size = (n: unknown): number => {
    if (isAlias(n)) {
      const target = anchors.get(n.source);
      const at = n.range?.[0];
      if (!target) throw new YamlLimit(`alias *${n.source} has no anchor &${n.source} before it`, at);
      if (open.has(target)) throw new YamlLimit(`alias *${n.source} is inside its own anchor`, at);
      const s = sizes.get(target) ?? 1;
      added += s;
      if (added > MAX_YAML_ALIAS_NODES)
        throw new YamlLimit(
          `aliases expand to more than ${MAX_YAML_ALIAS_NODES} nodes (a task file may repeat at most that many through &anchor / *alias): write the values out, or use fewer aliases`,
          at,
        );
      return s;
    }
    if (!n || typeof n !== 'object') return 0;
    const node = n as Node;
    if (node.anchor) anchors.set(node.anchor, node);
    let s = 1;
    if (isMap(node)) {
      open.add(node);
      const keys = new Set<string>();
      for (const p of node.items) {
        if (!isScalar(p.key))
          throw new YamlLimit(
            'keys must be plain values (no lists, mappings or aliases as keys)',
            node.range?.[0],
          );
        const k = p.key.value === null ? '' : String(p.key.value);
        if (keys.has(k))
          throw new YamlLimit(`duplicate key "${k}": map keys must be unique`, p.key.range?.[0]);
        keys.add(k);
        s += 1 + size(p.value);
      }
      open.delete(node);
    } else if (isSeq(node)) {
      open.add(node);
      for (const it of node.items) s += size(it);
      open.delete(node);
    }
    sizes.set(node, s);
    return s;
  };
  size(root);
  return added;
}

/**
 * Parses the text of task YAML file `file`.
 * @throws TaskLoadError naming the file, the line and what is wrong.
 */
function parseTaskYaml(file: string, text: string): unknown {
  const lines = new LineCounter();
  const fail = (message: string, offset?: number, cause?: unknown) => {
    const where = offset === undefined ? '' : ` at line ${lines.linePos(offset).line}`;
    return new TaskLoadError(file, '', `not valid YAML${where}: ${message.split('\n')[0]}`, cause);
  };
  const tokens = [...new Parser(lines.addNewLine).parse(text)];
  const deep = cstDepth(tokens);
  if (deep.depth > MAX_YAML_DEPTH)
    throw fail(`nested more than ${MAX_YAML_DEPTH} levels deep: flatten it`, deep.offset);
  const docs = [...new Composer({ uniqueKeys: false }).compose(tokens, true, text.length)];
  if (docs.length > 1) throw fail(`holds ${docs.length} documents ("---"): a task file holds one`);
  const doc = docs[0]!;
  const err = doc.errors[0];
  if (err) throw fail(err.message, err.pos[0], err);
  try {
    checkTree(doc.contents);
    // Second line of defence: yaml's own alias bound, above ours so it never fires first.
    return doc.toJS({ maxAliasCount: MAX_YAML_ALIAS_NODES * 10 });
  } catch (e) {
    if (e instanceof YamlLimit) throw fail(e.message, e.offset, e);
    throw fail(`cannot be read: ${(e as Error).message}`, undefined, e);
  }
}

/**
 * Reads and parses task YAML file `file`: its size is checked before it is read (at most
 * {@link MAX_TASK_YAML_BYTES}), a pipe or a device is refused, and parsing is bounded (see above).
 * @throws TaskLoadError naming the file, the line and what is wrong.
 */
export async function readTaskYaml(file: string): Promise<unknown> {
  const bytes = await readCapped(file, MAX_TASK_YAML_BYTES);
  if (!Buffer.isBuffer(bytes))
    throw new TaskLoadError(
      file,
      '',
      bytes.kind === 'too-big'
        ? `is ${sizeText(bytes.size!)} (${bytes.size} bytes): a task YAML file may be at most ${sizeText(MAX_TASK_YAML_BYTES)} (${MAX_TASK_YAML_BYTES} bytes); move long scripts or data into files of the task folder`
        : bytes.kind === 'unreadable'
          ? `cannot read: ${bytes.message.replace(/^cannot be read: /, '')}`
          : bytes.message,
    );
  return parseTaskYaml(file, bytes.toString('utf8'));
}
