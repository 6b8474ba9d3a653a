import { join } from 'node:path';
import { brokenLinks, docFiles, misusedMarkers, parseMarkdown, runnableBlocks } from './markdown';

const files = docFiles().map((path) => parseMarkdown(path));
const fixture = parseMarkdown(join('test', 'docs', 'fixtures', 'broken.md'));

describe('the docs (README.md, docs/**/*.md)', () => {
  it('are README.md and the pages under docs/, the kinds pages among them', () => {
    expect(files.map((f) => f.path)).toEqual(expect.arrayContaining(['README.md', 'docs/adding-a-kind.md', 'docs/kinds/database.md']));
  });

  it('link only to files and headings that exist', () => {
    expect(brokenLinks(files)).toEqual([]);
  });

  it('mark only sh blocks runnable, and none that runs npm ci or npm test', () => {
    expect(misusedMarkers(files)).toEqual([]);
  });

  it('have runnable blocks in the README-linked pages (the marker is in use, and parsed)', () => {
    const pages = new Set(runnableBlocks(files).map((b) => b.file));
    expect(runnableBlocks(files).length).toBeGreaterThanOrEqual(8);
    expect([...pages]).toEqual(expect.arrayContaining(['docs/install.md', 'docs/resources-in-git.md', 'docs/operating.md']));
  });
});

describe('the checks, on a page with every mistake', () => {
  it('name the file and line of each broken link, and pass the good ones and those in code', () => {
    expect(brokenLinks([fixture])).toEqual([
      'test/docs/fixtures/broken.md:3: link no-such-page.md: test/docs/fixtures/no-such-page.md does not exist',
      'test/docs/fixtures/broken.md:3: link broken.md#no-such-heading: test/docs/fixtures/broken.md has no heading with the anchor #no-such-heading',
      'test/docs/fixtures/broken.md:5: link ../../../../outside.md leaves the repository',
    ]);
  });

  it('refuse runnable on another language and a runnable npm ci, naming file and line', () => {
    expect(misusedMarkers([fixture])).toEqual([
      'test/docs/fixtures/broken.md:7: a yaml block is marked runnable; only `sh runnable` blocks are run',
      'test/docs/fixtures/broken.md:11: a runnable block must not run npm ci, npm install, npm test or npm run dev (the tests run inside npm test)',
    ]);
  });

  it('find the runnable sh blocks only, at the line of their opening fence', () => {
    expect(runnableBlocks([fixture]).map((b) => `${b.file}:${b.line}`)).toEqual(['test/docs/fixtures/broken.md:11', 'test/docs/fixtures/broken.md:15']);
  });
});
