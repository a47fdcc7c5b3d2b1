import { EngiloopError } from '../../core/index.js';

/** Every code raised under `actors/images/`. */
export type ImageErrorCode =
  /** `--only` names an image the catalog does not have (bad input; the message lists the known ones). */
  | 'IMAGE_UNKNOWN'
  /** `docker build` (or the Dockerode build stream) failed; the message holds its last lines. */
  | 'IMAGE_BUILD_FAILED';

/** An image that cannot be built: unknown name or a failed build. */
export class ImageError extends EngiloopError<ImageErrorCode> {
  override readonly name = 'ImageError';
}

/** True when `err` is an {@link ImageError} for an image name the catalog does not know. */
export function isImageUnknown(err: unknown): err is ImageError {
  return err instanceof ImageError && err.code === 'IMAGE_UNKNOWN';
}
