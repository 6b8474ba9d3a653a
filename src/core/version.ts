import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The version in the project's package.json, found by walking up from this file: the same
 * lookup works from src/ (tests), lib/src/ (the build) and /app/lib/src/ (the image).
 */
export function projectVersion(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'cdk8s-operators' && pkg.version) return pkg.version;
    }
    if (dirname(dir) === dir) throw new Error(`the package.json of cdk8s-operators was not found above ${__dirname}`);
  }
}
