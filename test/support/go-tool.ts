import { execFileSync } from 'node:child_process';

/**
 * A Go tool's bin directory, built on first use by its build.sh (scripts/go-tools.sh behind it:
 * seconds when the tool cache is warm, minutes when cold), which prints that directory last.
 */
export function goTool(buildScript: string): () => string {
  let bin: string | undefined;
  return () => {
    bin ??= execFileSync('bash', [buildScript], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim().split('\n').at(-1)!;
    return bin;
  };
}

/**
 * Gets the tools a test file runs before its first test. In CI the tools build in the background
 * while the tests run, so on a cold machine the first call may wait minutes for a build. Waiting
 * here, synchronously, holds only this file: a hook that returns without a promise has finished
 * before Jest's timer can fire, whereas a wait inside an async test would count against its timeout.
 */
export function toolsBeforeAll(...tools: Array<() => unknown>): void {
  beforeAll(() => {
    for (const tool of tools) tool();
  });
}
