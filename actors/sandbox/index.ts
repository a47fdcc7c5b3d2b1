/**
 * Public surface of the Docker sandbox: hardened containers with a persistent shell, the tool
 * runner verifiers use, and the sandbox errors.
 */
export type { Sandbox, SandboxCreateOptions } from './types.js';
export type { CommandResult } from './result.js';
export { DockerSandboxProvider, HOST_LABEL, PID_LABEL } from './docker.js';
export { LABEL, hardenedContainerOptions } from './hardening.js';
export { createRunTool } from './tool.js';
export {
  SandboxError,
  isContainerGone,
  isDockerUnreachable,
  isImageMissing,
  isGuiUnavailable,
  isSandboxIo,
} from './errors.js';
export type { SandboxErrorCode } from './errors.js';
export { DESKTOP_SCREEN, guiTurn, launchApp, runGuiActions, startDesktop } from './gui.js';
export { screenshot, waitForWindow, windows } from './gui-observe.js';
export { planGuiAction } from './gui-commands.js';
export type { GuiAction, GuiLimits } from './gui-commands.js';
export { toXdotoolKeys } from './gui-keys.js';
export type { FileRefusal } from './files.js';
