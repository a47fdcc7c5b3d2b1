/**
 * A task folder cannot make the harness block, read without end or fail only at run time: inputs
 * that are links out of the folder, pipes, sockets, devices or huge files are load errors naming
 * the file and the field, and `submit` (packTask) refuses exactly what loading refuses; task YAML
 * has a size limit and bounded parsing; and `tasks validate` rejects the workdirs, paths, regular
 * expressions, timeouts and caps that only fail once an episode runs.
 */
import { execFileSync } from 'node:child_process';
import {
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  truncate,
  writeFile,
} from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pack } from 'tar-stream';
import { afterEach, describe, expect, it } from 'vitest';
import { packTask, unpackTask } from '../../actors/worker/index.js';
import { parseDecision } from '../../machines/index.js';
import {
  checkTaskFile,
  loadTask,
  readTaskFile,
  TaskLoadError,
  TaskSchema,
  type TaskInput,
} from '../../tasks/index.js';
import { verifierRules } from '../../verifiers/index.js';
import { cli } from '../helpers/cli.js';
import { STARTER } from '../helpers/episode.js';

const dirs: string[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function scratch(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'engiloop-hostile-'));
  dirs.push(d);
  return d;
}

const TASK_YAML = `id: hostile-inputs
title: Hostile inputs
domain: cad
type: single-software
interface: cli
objective: Deliver the given part.
inputs:
  files:
    - { src: inputs/part.stl, dest: part.stl }
  reference_images: [inputs/view.png]
environment:
  sandboxes:
    main: { image: "engiloop/cli:latest" }
deliverables:
  - { path: part.stl, format: stl }
criteria:
  - { id: format, verifier: file.format, deliverable: part.stl }
reference:
  - { type: shell, command: "true" }
`;

/** A small valid task folder with two regular inputs and a hidden file; `yaml` edits task.yaml. */
async function taskDir(yaml: (y: string) => string = (y) => y): Promise<string> {
  const dir = join(await scratch(), 'task');
  await mkdir(join(dir, 'inputs'), { recursive: true });
  await mkdir(join(dir, 'hidden'));
  await writeFile(join(dir, 'task.yaml'), yaml(TASK_YAML));
  await writeFile(join(dir, 'inputs/part.stl'), 'solid part\nendsolid part\n');
  await writeFile(join(dir, 'inputs/view.png'), 'not really a png');
  await writeFile(join(dir, 'hidden/answer.txt'), '42');
  return dir;
}

async function loadError(dir: string): Promise<TaskLoadError> {
  const e = await loadTask(dir, { verifiers: verifierRules }).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(TaskLoadError);
  return e as TaskLoadError;
}

async function packError(dir: string): Promise<TaskLoadError> {
  const e = await packTask(dir).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(TaskLoadError);
  return e as TaskLoadError;
}

/** Replaces `rel` in `dir` by a device node like /dev/zero (char) or a loop device (block). */
function mknod(dir: string, rel: string, kind: 'c' | 'b'): void {
  const [major, minor] = kind === 'c' ? ['1', '5'] : ['7', '0'];
  execFileSync('rm', ['-f', join(dir, rel)]);
  execFileSync('mknod', [join(dir, rel), kind, major, minor]);
}

describe('task inputs that are not plain files inside the task folder', () => {
  it('a link to /dev/zero is a load error naming the file and the field; nothing is read', async () => {
    const dir = await taskDir();
    await rm(join(dir, 'inputs/part.stl'));
    await symlink('/dev/zero', join(dir, 'inputs/part.stl'));
    const rss = process.memoryUsage().rss;
    const t0 = performance.now();
    const e = await loadError(dir);
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(e.file).toBe(join(dir, 'task.yaml'));
    expect(e.field).toBe('inputs.files[0].src');
    expect(e.message).toContain(
      '"inputs/part.stl" is a symbolic link to /dev/zero, outside the task folder: copy the file into the task folder',
    );
    // The walk of the folder does not report the same file a second time.
    expect(e.problems).toHaveLength(1);
    // What provision calls reads nothing either, and says the same.
    const r = await readTaskFile(dir, 'inputs/part.stl', { field: 'inputs.files[0].src' }).catch(
      (x: unknown) => x,
    );
    expect(r).toBeInstanceOf(TaskLoadError);
    expect((r as TaskLoadError).field).toBe('inputs.files[0].src');
    expect((r as TaskLoadError).message).toContain('symbolic link to /dev/zero');
    expect(process.memoryUsage().rss - rss).toBeLessThan(64 * 1024 * 1024);
    // submit refuses the same file (it used to skip it silently).
    const p = await packError(dir);
    expect(p.file).toBe(join(dir, 'inputs/part.stl'));
    expect(p.message).toContain('symbolic link to /dev/zero, outside the task folder');
  });

  it('a link to a file outside the folder, and a linked folder, are refused', async () => {
    const outside = await scratch();
    await writeFile(join(outside, 'secret.txt'), 'host file');
    const dir = await taskDir();
    await rm(join(dir, 'inputs/view.png'));
    await symlink(join(outside, 'secret.txt'), join(dir, 'inputs/view.png'));
    const e = await loadError(dir);
    expect(e.field).toBe('inputs.reference_images[0]');
    expect(e.message).toContain(
      `"inputs/view.png" is a symbolic link to ${join(outside, 'secret.txt')}, outside`,
    );

    const linked = await taskDir((y) => y.replace('inputs/part.stl', 'shared/part.stl'));
    await writeFile(join(outside, 'part.stl'), 'solid x\nendsolid x\n');
    await symlink(outside, join(linked, 'shared'));
    const l = await loadError(linked);
    expect(l.problems.map((p) => [p.field, p.message.split(',')[0]])).toEqual([
      [
        'inputs.files[0].src',
        `"shared/part.stl" resolves to ${join(outside, 'part.stl')} through a linked folder`,
      ],
      ['', `"shared" is a symbolic link to ${outside}`],
    ]);
    expect((await packError(linked)).message).toContain(`"shared" is a symbolic link to ${outside}, outside`);
  });

  it('a FIFO as an input is refused at once (no read blocks on it), by load and by submit', async () => {
    const dir = await taskDir();
    await rm(join(dir, 'inputs/part.stl'));
    execFileSync('mkfifo', [join(dir, 'inputs/part.stl')]);
    const e = await loadError(dir);
    expect(e.field).toBe('inputs.files[0].src');
    expect(e.message).toContain(
      '"inputs/part.stl" is a named pipe (FIFO), not a regular file: a task folder holds',
    );
    expect((await packError(dir)).message).toContain('named pipe (FIFO)');
    const r = await readTaskFile(dir, 'inputs/part.stl').catch((x: unknown) => x);
    expect((r as TaskLoadError).file).toBe(join(dir, 'inputs/part.stl'));
  });

  it('a socket or a device anywhere in the folder (hidden/ too) is a load error naming it', async () => {
    const dir = await taskDir();
    const server = createServer();
    servers.push(server);
    await new Promise<void>((r) => server.listen(join(dir, 'hidden/sock'), r));
    let devices = true;
    try {
      mknod(dir, 'inputs/view.png', 'c');
      mknod(dir, 'hidden/disk', 'b');
    } catch {
      devices = false; // not root: the device classification is checked on /dev below instead
    }
    const e = await loadError(dir);
    const got = e.problems.map((p) => [p.file.replace(dir, '<task>'), p.field, p.message.split(',')[0]]);
    expect(got).toContainEqual(['<task>/hidden/sock', '', '"hidden/sock" is a socket']);
    expect((await packError(dir)).problems.map((p) => p.file)).toContain(join(dir, 'hidden/sock'));
    if (devices) {
      expect(got).toContainEqual([
        '<task>/task.yaml',
        'inputs.reference_images[0]',
        '"inputs/view.png" is a character device',
      ]);
      expect(got).toContainEqual(['<task>/hidden/disk', '', '"hidden/disk" is a block device']);
      expect(e.problems).toHaveLength(3);
    }
    expect((await checkTaskFile('/dev', 'zero'))?.kind).toBe('special');
    expect((await checkTaskFile('/dev', 'zero'))?.message).toContain('"zero" is a character device');
    const block = (await readdir('/dev', { withFileTypes: true })).find((d) => d.isBlockDevice());
    if (block) expect((await checkTaskFile('/dev', block.name))?.message).toContain('is a block device');
  });

  it('a file a verifier param names (taskFile) is checked the same way, at its param', async () => {
    const root = await scratch();
    const dir = join(root, 'verilog-counter');
    await cp(join(STARTER, 'verilog-counter'), dir, { recursive: true });
    await rm(join(dir, 'hidden/tb_counter.v'));
    await symlink('/etc/passwd', join(dir, 'hidden/tb_counter.v'));
    const e = await loadError(dir);
    expect(e.field).toBe('criteria[1].params.testbench');
    expect(e.message).toContain(
      '"hidden/tb_counter.v" is a symbolic link to /etc/passwd, outside the task folder',
    );
  });

  it('a link to a file inside the folder is allowed: run reads it and submit packs it as that file', async () => {
    const dir = await taskDir();
    await rm(join(dir, 'inputs/view.png'));
    await writeFile(join(dir, 'hidden/view.png'), 'the real view');
    await symlink('../hidden/view.png', join(dir, 'inputs/view.png'));
    await loadTask(dir, { verifiers: verifierRules });
    expect((await readTaskFile(dir, 'inputs/view.png')).toString()).toBe('the real view');
    const out = join(await scratch(), 'unpacked');
    await unpackTask(await packTask(dir), out);
    expect((await stat(join(out, 'inputs/view.png'))).isFile()).toBe(true);
    expect(await readFile(join(out, 'inputs/view.png'), 'utf8')).toBe('the real view');
    await loadTask(out, { verifiers: verifierRules });
  });

  it('submit packs a starter task deterministically, and a worker refuses a tar with a link in it', async () => {
    const src = join(STARTER, 'verilog-counter');
    const tar = await packTask(src);
    expect((await packTask(src)).equals(tar)).toBe(true);
    const out = join(await scratch(), 'unpacked');
    await unpackTask(tar, out);
    const files = async (d: string) => (await readdir(d, { recursive: true })).sort();
    expect(await files(out)).toEqual(await files(src));
    await loadTask(out, { verifiers: verifierRules });

    const evil = pack();
    const parts: Buffer[] = [];
    evil.on('data', (c: unknown) => void parts.push(c as Buffer));
    evil.entry({ name: 'task.yaml' }, 'id: x\n');
    evil.entry({ name: 'inputs/zero', type: 'symlink', linkname: '/dev/zero' });
    evil.finalize();
    await new Promise<void>((r) => evil.on('end', () => r()));
    const dest = join(await scratch(), 'evil');
    await expect(unpackTask(Buffer.concat(parts), dest)).rejects.toThrow(
      'unsafe task tar: entry "inputs/zero" is a symlink entry, not a file',
    );
    expect(await readdir(join(dest, '..'))).toEqual([]);
  });

  it('an input over 256 MiB (sparse: counted at its apparent size) is refused with its size', async () => {
    const dir = await taskDir();
    await truncate(join(dir, 'inputs/part.stl'), 300 * 1024 * 1024);
    const e = await loadError(dir);
    expect(e.field).toBe('inputs.files[0].src');
    expect(e.message).toContain(
      '"inputs/part.stl" is 300 MiB (314572800 bytes): a task file may be at most 256 MiB (268435456 bytes)',
    );
    expect((await packError(dir)).message).toContain('300 MiB');
    const small = await readTaskFile(dir, 'inputs/view.png', { maxBytes: 4 }).catch((x: unknown) => x);
    expect((small as Error).message).toContain(
      '"inputs/view.png" is 16 bytes: a task file may be at most 4 bytes',
    );
  });
});

describe('task YAML size and parsing are bounded', () => {
  it('a 200 000-key task.yaml fails on its size before it is read, in milliseconds', async () => {
    const dir = await taskDir();
    let big = TASK_YAML;
    for (let i = 0; i < 200_000; i++) big += `k${i}: ${i}\n`;
    await writeFile(join(dir, 'task.yaml'), big);
    const t0 = performance.now();
    const e = await loadError(dir);
    expect(performance.now() - t0).toBeLessThan(250);
    expect(e.file).toBe(join(dir, 'task.yaml'));
    expect(e.message).toMatch(
      /task\.yaml: is \d\.\d MiB \(\d+ bytes\): a task YAML file may be at most 128 KiB \(131072 bytes\)/,
    );
  });

  it('many keys just under the size limit fail fast too (the duplicate-key check was quadratic)', async () => {
    const dir = await taskDir();
    let text = '';
    for (let i = 0; text.length < 125 * 1024; i++) text += `k${i}: ${i}\n`;
    await writeFile(join(dir, 'task.yaml'), text + 'k7: again\n');
    const t0 = performance.now();
    const e = await loadError(dir);
    // This file took 1.1 s before (80 000 keys took 104 s); now about 0.2 s (slack for a busy CI).
    expect(performance.now() - t0).toBeLessThan(1500);
    expect(e.message).toMatch(/not valid YAML at line \d+: duplicate key "k7": map keys must be unique/);
  });

  it('a billion-laughs task.yaml is a clear error in milliseconds', async () => {
    const dir = await taskDir();
    let laughs = 'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n';
    let prev = 'a';
    for (const n of 'bcdefghi') {
      laughs += `${n}: &${n} [${Array(9).fill(`*${prev}`).join(', ')}]\n`;
      prev = n;
    }
    await writeFile(join(dir, 'task.yaml'), laughs);
    const t0 = performance.now();
    const e = await loadError(dir);
    expect(performance.now() - t0).toBeLessThan(200);
    expect(e.message).toMatch(/not valid YAML at line \d: aliases expand to more than 10000 nodes/);
  });

  it('deep nesting is refused before the parser recurses, and the next load still works', async () => {
    const dir = await taskDir();
    await writeFile(join(dir, 'task.yaml'), '['.repeat(900) + ']'.repeat(900));
    expect((await loadError(dir)).message).toContain(
      'not valid YAML at line 1: nested more than 64 levels deep',
    );
    // yaml's composer overflowed the stack here, and the next parse crashed the process.
    await writeFile(join(dir, 'task.yaml'), '{a: '.repeat(900) + '1' + '}'.repeat(900));
    expect((await loadError(dir)).message).toContain('nested more than 64 levels deep');
    await writeFile(join(dir, 'task.yaml'), TASK_YAML);
    await loadTask(dir, { verifiers: verifierRules });
  });

  it('an alias inside its own anchor, or with no anchor, is named', async () => {
    const dir = await taskDir();
    await writeFile(join(dir, 'task.yaml'), TASK_YAML + 'loop: &x [1, *x]\n');
    const line = TASK_YAML.split('\n').length;
    expect((await loadError(dir)).message).toContain(`at line ${line}: alias *x is inside its own anchor`);
    await writeFile(join(dir, 'task.yaml'), TASK_YAML + 'orphan: *nope\n');
    expect((await loadError(dir)).message).toContain('alias *nope has no anchor &nope before it');
  });

  it('a defect file over the limit, and a task.yaml that is a FIFO, are refused without reading', async () => {
    const dir = await taskDir();
    await mkdir(join(dir, 'defects'));
    await writeFile(join(dir, 'defects/huge.yaml'), `description: x\n# ${'x'.repeat(200 * 1024)}\n`);
    const e = await loadError(dir);
    expect(e.file).toBe(join(dir, 'defects/huge.yaml'));
    expect(e.message).toMatch(/is 200(\.0)? KiB \(\d+ bytes\): a task YAML file may be at most 128 KiB/);
    await rm(join(dir, 'task.yaml'));
    execFileSync('mkfifo', [join(dir, 'task.yaml')]);
    expect((await loadError(dir)).message).toContain('task.yaml: is a named pipe (FIFO), not a regular file');
  });
});

/** A valid task input with `edit` applied (edits reach into any field, so it is loosely typed). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = Record<string, any>;
function task(edit: (t: Loose) => void): TaskInput {
  const t: Loose = {
    id: 't1',
    title: 'T',
    domain: 'cad',
    type: 'single-software',
    interface: 'cli',
    objective: 'make part.stl',
    environment: { sandboxes: { main: { image: 'engiloop/cli:latest' } } },
    inputs: { files: [{ src: 'given.stl', dest: 'in/given.stl' }] },
    deliverables: [{ path: 'part.stl', format: 'stl' }],
    criteria: [{ id: 'present', verifier: 'file.format', deliverable: 'part.stl' }],
    reference: [{ type: 'shell', command: 'true' }],
  };
  edit(t);
  return t as TaskInput;
}

/** The `field: message` of each problem of `t`, or [] when it is valid. */
function issues(t: TaskInput): string[] {
  const r = TaskSchema.safeParse(t);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

const workdir = (w: string) => issues(task((t) => (t.environment.sandboxes.main.workdir = w)));

describe('tasks validate rejects what would fail only at run time', () => {
  it('a workdir of /, a system folder, or not normalised', () => {
    for (const w of ['/', '/proc', '/tmp', '/dev', '/sys', '/etc', '/usr', '/bin', '/var', '/run'])
      expect(workdir(w), w).toEqual([expect.stringMatching(/^environment\.sandboxes\.main\.workdir: /)]);
    expect(workdir('/')[0]).toContain('must be a folder of its own, not /');
    expect(workdir('/tmp')[0]).toContain('is the system folder /tmp: use a folder of its own');
    expect(workdir('/usr/local/work')[0]).toContain('inside the system folder /usr');
    expect(workdir('/workspace/')[0]).toContain('must not end with "/" (write "/workspace")');
    expect(workdir('/work/../etc')[0]).toContain('without empty, "." or ".." segments');
    expect(workdir('workspace')[0]).toContain('must be an absolute path');
    expect(workdir('/opt')[0]).toContain('would hide everything in /opt');
    expect(workdir('/work space')[0]).toContain('use letters, digits');
    for (const w of ['/workspace', '/home/agent/work', '/opt/task', '/data'])
      expect(workdir(w), w).toEqual([]);
  });

  it('a deliverable or an input dest of ".", "./", with a NUL or a control character, or a trailing "/"', () => {
    const deliverable = (p: string) =>
      issues(
        task((t) => {
          t.deliverables[0].path = p;
          t.criteria[0].deliverable = p;
        }),
      );
    expect(deliverable('.')).toEqual([
      'deliverables.0.path: names the folder itself: name a file inside it, e.g. "part.stl"',
    ]);
    expect(deliverable('./')[0]).toContain('deliverables.0.path: names the folder itself');
    expect(deliverable('part\0.stl')).toEqual([
      'deliverables.0.path: contains the control character U+0000 at position 4: use printable characters only',
    ]);
    expect(deliverable('part\u001b[2J.stl')[0]).toContain('control character U+001B');
    expect(deliverable('out/')[0]).toContain('without a trailing "/" (write "out")');
    expect(deliverable('./part.stl')[0]).toContain(
      'must be normalised, without "." or empty segments (write "part.stl")',
    );
    expect(deliverable('a//b.stl')[0]).toContain('(write "a/b.stl")');
    expect(deliverable('')[0]).toContain('must not be empty');
    expect(deliverable('out/part.stl')).toEqual([]);
    const dest = (p: string) => issues(task((t) => (t.inputs.files[0].dest = p)));
    expect(dest('.')[0]).toMatch(/^inputs\.files\.0\.dest: names the folder itself/);
    expect(dest('in\0x')[0]).toMatch(/^inputs\.files\.0\.dest: contains the control character U\+0000/);
    expect(dest('in/')[0]).toMatch(/^inputs\.files\.0\.dest: must name a file/);
  });

  it('a desktop.window that is not a regular expression', () => {
    const bad = issues(
      task((t) => {
        t.interface = 'gui';
        t.reference = [{ type: 'key', keys: 'ctrl+s' }];
        t.environment.sandboxes.main = { image: 'engiloop/desktop:latest', desktop: { window: 'Free(CAD' } };
      }),
    );
    expect(bad).toEqual(['environment.sandboxes.main.desktop.window: must be a valid regular expression']);
  });

  it('timeouts past what a Node timer holds, and caps out of range, name the field and the maximum', () => {
    const lim = (l: Record<string, unknown>) => issues(task((t) => (t.limits = l)));
    expect(lim({ action_timeout_sec: 2_592_000 })).toEqual([
      'limits.action_timeout_sec: at most 86400 s (1 day); longer limits are not supported',
    ]);
    expect(lim({ action_timeout_sec: 86_400 })).toEqual([]);
    expect(lim({ wall_clock_sec: 2_592_001 })).toEqual([
      'limits.wall_clock_sec: at most 2592000 s (30 days); longer limits are not supported',
    ]);
    expect(lim({ wall_clock_sec: Infinity })).toHaveLength(1);
    expect(lim({ output_cap_bytes: 100 })).toEqual(['limits.output_cap_bytes: from 1024 to 67108864 bytes']);
    expect(lim({ output_cap_bytes: 1e9 })).toEqual(['limits.output_cap_bytes: from 1024 to 67108864 bytes']);
    const sb = (s: Record<string, unknown>) =>
      issues(task((t) => Object.assign(t.environment.sandboxes.main, s)));
    expect(sb({ resources: { pids: 10_000_000 } })).toEqual([
      'environment.sandboxes.main.resources.pids: from 16 to 65536 processes',
    ]);
    expect(sb({ resources: { memory_mb: 10_000_000 } })).toEqual([
      'environment.sandboxes.main.resources.memory_mb: from 64 to 262144 MiB',
    ]);
    expect(sb({ desktop: { timeout_sec: 7200 } })).toEqual([
      'environment.sandboxes.main.desktop.timeout_sec: at most 3600 s (1 hour); longer limits are not supported',
    ]);
    expect(issues(task((t) => (t.history_window = 1_000_000)))).toEqual([
      'history_window: from 1 to 1000 rounds',
    ]);
    expect(
      issues(task((t) => (t.reference = [{ type: 'shell', command: 'sleep 1', timeout_sec: 2_200_000 }]))),
    ).toEqual(['reference.0.timeout_sec: at most 86400 s (1 day); longer limits are not supported']);
    expect(
      issues(task((t) => (t.criteria[0].params = { timeout_sec: 1e9, nested: { parse_timeout_sec: 1e6 } }))),
    ).toEqual([
      'criteria.0.params.timeout_sec: at most 86400 s (1 day); longer limits are not supported',
      'criteria.0.params.nested.parse_timeout_sec: at most 86400 s (1 day); longer limits are not supported',
    ]);
  });

  it('an agent asking for a timeout past the maximum gets an invalid decision, not a 1 ms kill', () => {
    const d = parseDecision({ actions: [{ type: 'shell', command: 'make', timeout_sec: 3_000_000 }] });
    expect(d).toMatchObject({ kind: 'invalid' });
    expect((d as { error: string }).error).toContain('at most 86400 s');
  });

  it('defect and alternative actions, and GUI waits past the sandbox limit, are load errors', async () => {
    const root = await scratch();
    const dir = join(root, 'verilog-counter');
    await cp(join(STARTER, 'verilog-counter'), dir, { recursive: true });
    await writeFile(
      join(dir, 'defects/forever.yaml'),
      'description: waits for ever\nfails: [testbench]\nactions:\n  - { type: shell, command: "sleep 1", timeout_sec: 2592000 }\n',
    );
    const e = await loadError(dir);
    expect(e.file).toBe(join(dir, 'defects/forever.yaml'));
    expect(e.field).toBe('actions[0].timeout_sec');
    expect(e.message).toContain('at most 86400 s (1 day)');

    const gui = join(root, 'librecad-plate');
    await cp(join(STARTER, '../gui/librecad-plate'), gui, { recursive: true });
    const y = await readFile(join(gui, 'task.yaml'), 'utf8');
    await writeFile(join(gui, 'task.yaml'), y.replace(/seconds: 20\b/, 'seconds: 120'));
    const g = await loadError(gui);
    expect(g.field).toMatch(/^reference\[\d+\](\[\d+\])?\.seconds$/);
    expect(g.message).toContain('a wait of 120 s: the GUI sandbox waits at most 60 s per action');
  });

  it('`tasks validate` prints each problem and exits 2', async () => {
    const dir = await taskDir((y) =>
      y
        .replace(
          'main: { image: "engiloop/cli:latest" }',
          'main: { image: "engiloop/cli:latest", workdir: /proc }',
        )
        .replace('{ path: part.stl, format: stl }', '{ path: ".", format: stl }'),
    );
    const r = await cli(['tasks', 'validate', dir], {}, { timeoutMs: 60_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('task.yaml: environment.sandboxes.main.workdir: is the system folder /proc');
    expect(r.stderr).toContain('task.yaml: deliverables[0].path: names the folder itself');
    expect(r.stdout).toContain('0 valid, 1 invalid');
  });
});
