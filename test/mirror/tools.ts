import { join } from 'node:path';
import { goTool } from '../support/go-tool';

/** The real programs the mirror tests run, built once by build.sh beside this file. */
export interface MirrorTools {
  /** distribution's registry, the program of the cache's registry image. */
  readonly registry: string;
  /** containerd's hosts.toml resolution, as its CRI plugin does it: `containerd-hosts <config_path> <image>`. */
  readonly containerdHosts: string;
}

const mirrorBin = goTool(join(__dirname, 'build.sh'));

/** Builds the tools on first use (minutes when the cache is cold) and returns their paths. */
export function mirrorTools(): MirrorTools {
  const bin = mirrorBin();
  return { registry: join(bin, 'registry'), containerdHosts: join(bin, 'containerd-hosts') };
}
