/** Runs once before all test files. Services are started by `scripts/setup.sh` (called by `npm test`). */
export default function setup(): void {}
