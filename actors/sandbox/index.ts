/**
 * Public surface of the Docker sandbox: hardened containers with a persistent shell, the tool
 * runner verifiers use, and the sandbox errors.
 */
export type { ExecOptions, Sandbox, SandboxCreateOptions } from './types.js';
export { DockerSandboxProvider, HOST_LABEL, PID_LABEL } from './docker.js';
export type { DockerSandboxProviderOptions, RemoveOrphansOptions } from './docker.js';
export { LABEL, hardenedContainerOptions } from './hardening.js';
export type { HardenedOptions } from './hardening.js';
export { createRunTool } from './tool.js';
export type { RunToolOptions } from './tool.js';
export {
  SandboxError,
  imageBuildHint,
  isContainerGone,
  isDockerUnreachable,
  isImageMissing,
  isSandboxIo,
} from './errors.js';
export type { SandboxErrorCode } from './errors.js';
export { asyncDispose } from './dispose.js';
