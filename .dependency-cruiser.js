/**
 * Module boundaries, enforced by `npm run deps` (part of `npm run check`):
 * - no import cycles anywhere (sources, tests, benchmarks);
 * - a folder is a module (core, machines, streams, tasks, verifiers, and each actors/<sub>/): code
 *   outside it imports it only through its index.ts. A file directly in actors/ (paths.ts,
 *   telemetry.ts, terminal.ts) is a module of its own and imported as it is.
 * - a file in actors/cli/commands/ is imported by actors/cli/main.ts alone (commands are no library).
 * Tests and benchmarks (test/, bench/) are the internal entry for siblings: they may import any file.
 */
import { readdirSync } from 'node:fs';

const actorFolders = readdirSync('actors', { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => `actors/${d.name}`);
const folders = ['core', 'machines', 'streams', 'tasks', 'verifiers', ...actorFolders];
const esc = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const sources = `^(${folders.map(esc).join('|')}|actors)/`;

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: break it by moving the shared part into a module both import.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'cli-commands-are-not-a-library',
      severity: 'error',
      comment:
        'A command file only registers its commands with main.ts: move what another module needs to the module that owns it.',
      from: { pathNot: '^actors/cli/main\\.ts$' },
      to: { path: '^actors/cli/commands/' },
    },
    ...folders.map((f) => ({
      name: `deep-import:${f}`,
      severity: 'error',
      comment: `${f}/ is imported from outside only through ${f}/index.ts: export the name there.`,
      from: { path: sources, pathNot: `^${esc(f)}/` },
      to: { path: `^${esc(f)}/`, pathNot: `^${esc(f)}/index\\.ts$` },
    })),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^(actors|core|machines|streams|tasks|verifiers|bench|test)/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
