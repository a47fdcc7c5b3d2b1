/**
 * The error base and every folder's predicates: each recognises its own error and rejects the
 * others, and a code outside a folder's union fails typecheck (the `@ts-expect-error` lines).
 */
import { describe, expect, it } from 'vitest';
import { EngiloopError, hasCode, isRetryable, toErrorData } from '../../core/index.js';
import { AgentError, type AgentErrorCode } from '../../actors/agents/index.js';
import { ImageError, isImageUnknown, type ImageErrorCode } from '../../actors/images/index.js';
import {
  isContainerGone,
  isDockerUnreachable,
  isGuiUnavailable,
  isImageMissing,
  isSandboxIo,
  SandboxError,
  type SandboxErrorCode,
} from '../../actors/sandbox/index.js';
import {
  BlobDigestError,
  BlobNotFoundError,
  CodecError,
  InvalidLogIdError,
  isBlobDigestMismatch,
  isLogConflict,
  LogConflictError,
  LogWriteError,
  NatsServerError,
  NatsUnreachableError,
  RetentionSettingsError,
  RunNotFoundError,
  UpcastError,
  type StreamsErrorCode,
} from '../../streams/index.js';
import { isTaskLoadError, TaskLoadError, type TasksErrorCode } from '../../tasks/index.js';
import {
  ArtifactInvalidError,
  isArtifactInvalid,
  isUnknownVerifier,
  isVerifierTimeout,
  UnknownVerifierError,
  VerifierError,
  VerifierTimeoutError,
  type VerifierErrorCode,
} from '../../verifiers/index.js';

/** One error of each kind the predicates below know, by name. */
const samples: Record<string, unknown> = {
  dockerUnreachable: new SandboxError('DOCKER_UNREACHABLE', 'no engine at /var/run/docker.sock'),
  imageMissing: new SandboxError('IMAGE_MISSING', 'Image engiloop/cli:latest is not present locally'),
  containerGone: new SandboxError('CONTAINER_GONE', 'container 1a2b is gone'),
  sandboxIo: new SandboxError('SANDBOX_IO', "Path may not contain '..'"),
  guiUnavailable: new SandboxError('GUI_UNAVAILABLE', 'Xvfb never came up'),
  imageUnknown: new ImageError('IMAGE_UNKNOWN', 'unknown image cadd'),
  imageBuildFailed: new ImageError('IMAGE_BUILD_FAILED', 'docker build exited 1'),
  taskInvalid: new TaskLoadError('task.yaml', 'limits.max_rounds', 'expected a number'),
  logConflict: new LogConflictError('episode', 'ep-1', 4, 'wrong last sequence: 5'),
  logWrite: new LogWriteError('append to episode ep-1 failed: timeout'),
  blobDigest: new BlobDigestError('ab'.repeat(32), 'cd'.repeat(32)),
  unknownVerifier: new UnknownVerifierError('stl_volum', ['stl_volume']),
  verifierTimeout: new VerifierTimeoutError('calculix', 60_000),
  artifactInvalid: new ArtifactInvalidError('part.stl is empty'),
  agent: new AgentError('AGENT_UNKNOWN', 'unknown agent "gtp"'),
  plain: new Error('CONTAINER_GONE'),
  notAnError: { code: 'CONTAINER_GONE', retryable: true },
};

const predicates: Record<string, [(e: unknown) => boolean, string]> = {
  isDockerUnreachable: [isDockerUnreachable, 'dockerUnreachable'],
  isImageMissing: [isImageMissing, 'imageMissing'],
  isContainerGone: [isContainerGone, 'containerGone'],
  isSandboxIo: [isSandboxIo, 'sandboxIo'],
  isGuiUnavailable: [isGuiUnavailable, 'guiUnavailable'],
  isImageUnknown: [isImageUnknown, 'imageUnknown'],
  isTaskLoadError: [isTaskLoadError, 'taskInvalid'],
  isLogConflict: [isLogConflict, 'logConflict'],
  isBlobDigestMismatch: [isBlobDigestMismatch, 'blobDigest'],
  isUnknownVerifier: [isUnknownVerifier, 'unknownVerifier'],
  isVerifierTimeout: [isVerifierTimeout, 'verifierTimeout'],
  isArtifactInvalid: [isArtifactInvalid, 'artifactInvalid'],
};

describe('folder predicates', () => {
  it.each(Object.entries(predicates))('%s recognises its error and rejects every other', (_, [is, own]) => {
    const matched = Object.entries(samples)
      .filter(([, e]) => is(e))
      .map(([name]) => name);
    expect(matched).toEqual([own]);
  });
});

/**
 * Every code of every folder with whether a retry can help, listed once per union (`satisfies
 * Record<Code, …>`): a code added to a union without a line here fails typecheck.
 */
const retryableByFolder = {
  sandbox: {
    DOCKER_UNREACHABLE: true,
    IMAGE_MISSING: false,
    CONTAINER_GONE: false,
    SANDBOX_IO: false,
    GUI_UNAVAILABLE: false,
    DISK_LIMIT_UNAVAILABLE: false,
  } satisfies Record<SandboxErrorCode, boolean>,
  agents: {
    AGENT_UNKNOWN: false,
    AGENT_KEY_MISSING: false,
    AGENT_DEFECT_MISSING: false,
    PRICES_INVALID: false,
    PROVIDER_ERROR: false,
    PROVIDER_REJECTED: false,
    PROVIDER_UNAVAILABLE: false,
    REPLAY_EXHAUSTED: false,
    REPLAY_MISMATCH: false,
    ABORTED: false,
  } satisfies Record<AgentErrorCode, boolean>,
  images: { IMAGE_UNKNOWN: false, IMAGE_BUILD_FAILED: false } satisfies Record<ImageErrorCode, boolean>,
  verifiers: {
    VERIFIER_UNKNOWN: false,
    VERIFIER_DUPLICATE: false,
    VERIFIER_TIMEOUT: false,
    VERIFIER_PARAMS: false,
    ARTIFACT_INVALID: false,
  } satisfies Record<VerifierErrorCode, boolean>,
};

/** One instance of each `streams/` class, by the code it must carry, with its retryability. */
const streamsErrors = {
  NATS_SERVER_MISSING: [new NatsServerError('NATS_SERVER_MISSING', 'nats-server not on PATH'), false],
  NATS_SERVER_EXITED: [new NatsServerError('NATS_SERVER_EXITED', 'exited 1'), false],
  NATS_SERVER_TIMEOUT: [new NatsServerError('NATS_SERVER_TIMEOUT', 'not ready in 10 s'), true],
  NATS_UNREACHABLE: [new NatsUnreachableError('nats://127.0.0.1:1'), true],
  EVENT_DECODE: [new CodecError('EVENT_DECODE', 'not MessagePack'), false],
  EVENT_ENCODE: [new CodecError('EVENT_ENCODE', 'a function'), false],
  EVENT_VERSION_UNSUPPORTED: [new UpcastError('v99'), false],
  INVALID_LOG_ID: [new InvalidLogIdError('episode', 'a.b'), false],
  LOG_CONFLICT: [samples.logConflict as LogConflictError, false],
  LOG_WRITE: [samples.logWrite as LogWriteError, true],
  RUN_NOT_FOUND: [new RunNotFoundError('r-1'), false],
  BLOB_NOT_FOUND: [new BlobNotFoundError('ab'.repeat(32)), false],
  BLOB_DIGEST_MISMATCH: [samples.blobDigest as BlobDigestError, false],
  RETENTION_INVALID: [new RetentionSettingsError('retention graceMs must be a number ≥ 0'), false],
} satisfies Record<StreamsErrorCode, [EngiloopError, boolean]>;

describe('code unions', () => {
  it('every code of a folder builds an error carrying it, retryable as documented', () => {
    const built: [string, string, boolean][] = [
      ...Object.entries(retryableByFolder.sandbox).map(([c, r]) => {
        const e = new SandboxError(c as SandboxErrorCode, 'm');
        return [c, e.code, e.retryable === r] as [string, string, boolean];
      }),
      ...Object.entries(retryableByFolder.agents).map(([c, r]) => {
        const e = new AgentError(c as AgentErrorCode, 'm');
        return [c, e.code, e.retryable === r] as [string, string, boolean];
      }),
      ...Object.entries(retryableByFolder.images).map(([c, r]) => {
        const e = new ImageError(c as ImageErrorCode, 'm');
        return [c, e.code, e.retryable === r] as [string, string, boolean];
      }),
      ...Object.entries(retryableByFolder.verifiers).map(([c, r]) => {
        const e = new VerifierError(c as VerifierErrorCode, 'm');
        return [c, e.code, e.retryable === r] as [string, string, boolean];
      }),
      ...Object.entries(streamsErrors).map(
        ([c, [e, r]]) => [c, e.code, e.retryable === r] as [string, string, boolean],
      ),
    ];
    expect(built.filter(([c, code, ok]) => c !== code || !ok)).toEqual([]);
    const task: TasksErrorCode = (samples.taskInvalid as TaskLoadError).code;
    expect(task).toBe('TASK_INVALID');
  });
});

describe('EngiloopError', () => {
  it('carries a typed code that a switch narrows', () => {
    const advice = (e: SandboxError): string => {
      switch (e.code) {
        case 'CONTAINER_GONE':
          return 'lost';
        case 'DOCKER_UNREACHABLE':
          return 'retry later';
        default: {
          const rest: Exclude<SandboxErrorCode, 'CONTAINER_GONE' | 'DOCKER_UNREACHABLE'> = e.code;
          return rest;
        }
      }
    };
    expect(advice(samples.containerGone as SandboxError)).toBe('lost');
    expect(advice(samples.sandboxIo as SandboxError)).toBe('SANDBOX_IO');
  });

  it('refuses a code outside the folder union at compile time', () => {
    // @ts-expect-error 'CONTAINER_GONEE' is not a SandboxErrorCode
    const typo = new SandboxError('CONTAINER_GONEE', 'misspelt');
    // @ts-expect-error 'IMAGE_MISSING' belongs to the sandbox folder, not the images folder
    const borrowed = new ImageError('IMAGE_MISSING', 'wrong folder');
    // @ts-expect-error 'LOG_CONFLICT' is not an AgentErrorCode
    const other = new AgentError('LOG_CONFLICT', 'wrong folder');
    expect([typo.code, borrowed.code, other.code]).toEqual([
      'CONTAINER_GONEE',
      'IMAGE_MISSING',
      'LOG_CONFLICT',
    ]);
  });

  it('hasCode, isRetryable and toErrorData read the base fields only', () => {
    expect(hasCode(samples.containerGone, 'CONTAINER_GONE')).toBe(true);
    expect(hasCode(samples.plain, 'CONTAINER_GONE')).toBe(false);
    expect(hasCode(samples.notAnError, 'CONTAINER_GONE')).toBe(false);
    expect(isRetryable(samples.dockerUnreachable)).toBe(true);
    expect(isRetryable(samples.logWrite)).toBe(true);
    expect(isRetryable(samples.containerGone)).toBe(false);
    expect(isRetryable(samples.notAnError)).toBe(false);
    expect(toErrorData(samples.logConflict)).toEqual({
      code: 'LOG_CONFLICT',
      message: 'episode ep-1: another writer appended first (expected last seq 4; wrong last sequence: 5)',
      retryable: false,
    });
    expect(toErrorData(samples.plain)).toEqual({
      code: 'INTERNAL',
      message: 'CONTAINER_GONE',
      retryable: false,
    });
    expect(toErrorData('boom')).toEqual({ code: 'INTERNAL', message: 'boom', retryable: false });
    expect(new EngiloopError('X', 'y', { cause: samples.plain }).cause).toBe(samples.plain);
  });
});
