import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** The info string word that marks a shell block of the docs as run by test/docs/runnable.test.ts. */
export const RUNNABLE = 'runnable';
/** The only language a runnable block may be written in (docs/development.md, "Runnable commands in the docs"). */
export const RUNNABLE_LANGUAGE = 'sh';

export const ROOT = join(__dirname, '..', '..');

/** A fenced code block: where its opening fence is (1-based line), its info string and its text. */
export interface CodeBlock {
  readonly file: string;
  readonly line: number;
  readonly language: string;
  readonly words: readonly string[];
  readonly text: string;
}

/** A link of the prose (not of code) and the line it is on. */
export interface Link {
  readonly file: string;
  readonly line: number;
  readonly target: string;
}

export interface MarkdownFile {
  readonly path: string;
  readonly blocks: readonly CodeBlock[];
  readonly links: readonly Link[];
  readonly anchors: ReadonlySet<string>;
}

/** README.md and every .md file under docs/, as paths relative to the checkout. */
export function docFiles(root = ROOT): string[] {
  const files = ['README.md'];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir)).sort()) {
      const path = join(dir, entry);
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (entry.endsWith('.md')) files.push(path);
    }
  };
  walk('docs');
  return files;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, blanks made hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const LINK = /!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;

/** Reads one Markdown file (path relative to root): its fenced blocks, its prose links and its headings' anchors. */
export function parseMarkdown(path: string, root = ROOT): MarkdownFile {
  const lines = readFileSync(join(root, path), 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  const links: Link[] = [];
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let open: { fence: string; line: number; info: string; body: string[] } | undefined;
  lines.forEach((text, index) => {
    const fence = FENCE.exec(text);
    if (open) {
      if (fence && fence[1][0] === open.fence[0] && fence[1].length >= open.fence.length && fence[2].trim() === '') {
        const words = open.info.split(/\s+/).filter((w) => w !== '');
        blocks.push({ file: path, line: open.line, language: words[0] ?? '', words, text: `${open.body.join('\n')}\n` });
        open = undefined;
      } else open.body.push(text);
      return;
    }
    if (fence) {
      open = { fence: fence[1], line: index + 1, info: fence[2].trim(), body: [] };
      return;
    }
    const heading = HEADING.exec(text);
    if (heading) {
      const base = anchorOf(heading[2]);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const match of text.replace(/`[^`]*`/g, '').matchAll(LINK)) links.push({ file: path, line: index + 1, target: match[1] });
  });
  if (open) throw new Error(`${path}:${open.line}: a code block opened here is never closed`);
  return { path, blocks, links, anchors };
}

/** Every problem of the docs' links, one line each naming file and line: a missing file, or a missing heading of a Markdown file. */
export function brokenLinks(files: readonly MarkdownFile[], root = ROOT): string[] {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const anchorsOf = (path: string): ReadonlySet<string> => {
    const known = byPath.get(path);
    if (known) return known.anchors;
    const parsed = parseMarkdown(path, root);
    byPath.set(path, parsed);
    return parsed.anchors;
  };
  const problems: string[] = [];
  for (const file of files) {
    for (const link of file.links) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) continue; // https:, mailto: and the like
      const [pathPart, anchor] = link.target.split('#', 2);
      const target = pathPart === '' ? file.path : relative(root, resolve(root, dirname(file.path), decodeURI(pathPart)));
      const where = `${link.file}:${link.line}: link ${link.target}`;
      if (target.startsWith('..')) problems.push(`${where} leaves the repository`);
      else if (!existsSync(join(root, target))) problems.push(`${where}: ${target} does not exist`);
      else if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(target).has(anchor)) {
        problems.push(`${where}: ${target} has no heading with the anchor #${anchor}`);
      }
    }
  }
  return problems;
}

/** Blocks marked runnable that the runnable test refuses: another language, or a command that must not run inside the tests. */
export function misusedMarkers(files: readonly MarkdownFile[]): string[] {
  const problems: string[] = [];
  for (const block of files.flatMap((f) => f.blocks)) {
    if (!block.words.includes(RUNNABLE)) continue;
    const where = `${block.file}:${block.line}`;
    if (block.language !== RUNNABLE_LANGUAGE) {
      problems.push(`${where}: a ${block.language || 'plain'} block is marked ${RUNNABLE}; only \`${RUNNABLE_LANGUAGE} ${RUNNABLE}\` blocks are run`);
    } else if (/\bnpm\s+(ci|test|t|install|i)\b|\bnpm\s+run\s+(test|dev)\b/.test(block.text)) {
      problems.push(`${where}: a ${RUNNABLE} block must not run npm ci, npm install, npm test or npm run dev (the tests run inside npm test)`);
    }
  }
  return problems;
}

/** The runnable blocks of the files. */
export function runnableBlocks(files: readonly MarkdownFile[]): CodeBlock[] {
  return files.flatMap((f) => f.blocks).filter((b) => b.language === RUNNABLE_LANGUAGE && b.words.includes(RUNNABLE));
}
