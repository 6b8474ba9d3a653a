import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ENGINE_NAME } from './identity';

/**
 * The version in the project's package.json, found by walking up from this file: the same
 * lookup works from src/ (tests), lib/src/ (the build) and /app/lib/src/ (the image).
 */
export function projectVersion(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === ENGINE_NAME && pkg.version) return pkg.version;
    }
    if (dirname(dir) === dir) throw new Error(`the package.json of ${ENGINE_NAME} was not found above ${__dirname}`);
  }
}
