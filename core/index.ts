/**
 * Public surface of `core/`: what every folder shares and nothing else — the error base, the one
 * retry loop and the `asyncDispose` key. It imports nothing from the other folders, so no import
 * cycle can pass through it.
 */
export { asyncDispose } from './dispose.js';
export { EngiloopError, hasCode, isRetryable, toErrorData } from './errors.js';
export { retry, retryDelayMs, RETRY_BUDGET, type RetryBudget, type RetryOptions } from './retry.js';
