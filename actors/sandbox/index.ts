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
  isGuiUnavailable,
  isSandboxIo,
} from './errors.js';
export type { SandboxErrorCode } from './errors.js';
export { asyncDispose } from './dispose.js';
export { DESKTOP_SCREEN, guiTurn, launchApp, runGuiActions, startDesktop } from './gui.js';
export type {
  GuiActionResult,
  GuiActionsOutcome,
  GuiTurn,
  GuiTurnOptions,
  RunGuiActionsOptions,
} from './gui.js';
export { screenshot, waitForWindow, windows } from './gui-observe.js';
export type { GuiWindow, ObserveOptions, Screenshot, WindowInfo, WindowList } from './gui-observe.js';
export { planGuiAction } from './gui-commands.js';
export type { GuiAction, GuiActionError, GuiActionErrorCode, GuiLimits, ScreenSize } from './gui-commands.js';
export { KeyNameError, toXdotoolKeys } from './gui-keys.js';
export type { FileOut, FileRefusal } from './files.js';
export type { SnapshotOut } from './workspace.js';
export { diskLimitMode, splitDisk } from './disk.js';
export type { DiskSplit } from './disk.js';
export { commandFault } from './faults.js';
