/** Which sandbox of a task an input, action or deliverable that names none goes to. */

/** The part of a task {@link defaultSandbox} reads: a loaded `Task` or one read back from a log. */
export interface HasSandboxes {
  environment: { sandboxes: Record<string, unknown> };
}

/**
 * The default sandbox: the first one `environment.sandboxes` lists. An input file, a shell action, an
 * image the agent asks to see or a deliverable without a `sandbox` field goes there, and so do the reference
 * images. The schema refuses a task with no sandbox, so there is always one.
 *
 * @example action.sandbox ?? defaultSandbox(task) // 'cad' for `sandboxes: { cad: …, slicer: … }`
 */
export function defaultSandbox(task: HasSandboxes): string {
  return Object.keys(task.environment.sandboxes)[0]!;
}
