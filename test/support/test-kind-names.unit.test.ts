import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const TEST_ROOT = join(__dirname, '..');
const DEFINITION = /\b(?:defineTestKind|defineVersionedTestKind|twinKind)\('([A-Za-z]+)'/g;

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === 'fixtures' ? [] : testFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

// Test files run side by side on one control plane, and a test kind's name gives its CRD's
// name: two files defining the same kind install over each other's CRD and list each other's objects.
it('gives every test kind a name no other test file uses', () => {
  const files = new Map<string, Set<string>>();
  for (const file of testFiles(TEST_ROOT)) {
    for (const [, name] of readFileSync(file, 'utf8').matchAll(DEFINITION)) {
      files.set(name, (files.get(name) ?? new Set()).add(relative(TEST_ROOT, file)));
    }
  }
  const shared = [...files].filter(([, where]) => where.size > 1).map(([name, where]) => `${name}: ${[...where].join(', ')}`);
  expect(shared).toEqual([]);
});
