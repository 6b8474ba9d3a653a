import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ENGINE_NAME, ENGINE_PACKAGE } from './identity';

/**
 * The engine's version: its package.json's, found by walking up from this file. The same
 * lookup works from src/ (tests), lib/src/ (the build), /app/lib/src/ (the image) and the
 * engine package installed in an operator's node_modules/.
 */
export function projectVersion(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if ((pkg.name === ENGINE_NAME || pkg.name === ENGINE_PACKAGE) && pkg.version) return pkg.version;
    }
    if (dirname(dir) === dir) throw new Error(`the package.json of ${ENGINE_NAME} was not found above ${__dirname}`);
  }
}
