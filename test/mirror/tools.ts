import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** The real programs the mirror tests run, built once by build.sh beside this file. */
export interface MirrorTools {
  /** distribution's registry, the program of the cache's registry image. */
  readonly registry: string;
  /** containerd's hosts.toml resolution, as its CRI plugin does it: `containerd-hosts <config_path> <image>`. */
  readonly containerdHosts: string;
}

let built: MirrorTools | undefined;

/** Builds the tools on first use (minutes when the cache is cold) and returns their paths. */
export function mirrorTools(): MirrorTools {
  if (!built) {
    const output = execFileSync('bash', [join(__dirname, 'build.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    const bin = output.trim().split('\n').at(-1)!;
    built = { registry: join(bin, 'registry'), containerdHosts: join(bin, 'containerd-hosts') };
  }
  return built;
}
