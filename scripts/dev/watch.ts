import { FSWatcher, watch } from 'node:fs';
import { join } from 'node:path';

/**
 * Calls `onChange` once the files under `dirs` have been quiet for `debounceMs` after a
 * change. Runs never overlap: a change during a run leads to one more run after it.
 */
export function watchTrees(dirs: readonly string[], debounceMs: number, onChange: (changed: string[]) => Promise<void>): { close(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let pending = new Set<string>();
  let running: Promise<void> | undefined;
  let closed = false;

  const run = () => {
    timer = undefined;
    if (running || closed) return;
    const changed = [...pending].sort();
    pending = new Set();
    running = onChange(changed).finally(() => {
      running = undefined;
      if (pending.size > 0 && !closed) timer = setTimeout(run, debounceMs);
    });
  };
  const changedFile = (dir: string, file: string | null) => {
    pending.add(file ? join(dir, file) : dir);
    if (timer) clearTimeout(timer);
    if (!running) timer = setTimeout(run, debounceMs);
  };
  const watchers: FSWatcher[] = dirs.map((dir) => watch(dir, { recursive: true }, (_event, file) => changedFile(dir, file)));

  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const w of watchers) w.close();
      await running;
    },
  };
}
