import { ManagedProcess, isAlive, sleep, stillRunning, stopProcesses } from './processes';

/**
 * Runs detached beside a test run's control plane: when the process that started it dies
 * without stopping it (a killed or timed-out Jest), the watchdog stops it, so nothing is
 * left running. Arguments: the parent's pid, then the state file's process list as JSON.
 */
async function watch(parent: number, processes: ManagedProcess[]): Promise<void> {
  while (isAlive(parent) && processes.some(stillRunning)) await sleep(1000);
  await stopProcesses([...processes].reverse());
}

void watch(Number(process.argv[2]), JSON.parse(process.argv[3]) as ManagedProcess[]);
