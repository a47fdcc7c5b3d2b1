// ESLint flat config. The key rule: machines/ is pure — no I/O, no clocks, no randomness.
import tseslint from 'typescript-eslint';

const ioModules = [
  'dockerode',
  'nats',
  '@nats-io/*',
  'msgpackr',
  'node:*',
  'fs',
  'fs/*',
  'path',
  'os',
  'child_process',
  'net',
  'http',
  'https',
  'crypto',
  'stream',
  'worker_threads',
  'process',
  'timers',
  '@opentelemetry/*',
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // core/ is what every folder shares: it may depend on none of them, so no cycle passes through it.
    files: ['core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../*'],
              message: 'core/ imports nothing from the other folders: move the shared part here.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['machines/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: ioModules.map((group) => ({
            group: [group],
            message: 'machines/ is pure: effects live in actors/ and arrive as events.',
          })),
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'machines/ is pure: no process access.' },
        { name: 'fetch', message: 'machines/ is pure: no I/O.' },
        { name: 'setTimeout', message: 'machines/ is pure: time arrives as events.' },
        { name: 'setInterval', message: 'machines/ is pure: time arrives as events.' },
        { name: 'performance', message: 'machines/ is pure: time arrives as events.' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'machines/ is pure: the clock arrives as event `at`.' },
        {
          object: 'Math',
          property: 'random',
          message: 'machines/ is pure: ids and randomness arrive as events.',
        },
        { object: 'crypto', property: 'randomUUID', message: 'machines/ is pure: ids arrive as events.' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'machines/ is pure: the clock arrives as event `at`.',
        },
        { selector: 'ImportExpression', message: 'machines/ is pure: no dynamic imports.' },
      ],
    },
  },
);
