/**
 * The longest functions of the source (not tests, benches or scripts), by the TypeScript compiler's
 * own parse: every function declaration, method, constructor, accessor, function expression and
 * arrow function, nested ones counted on their own too (a 278-line generator inside a 344-line
 * function is two entries). Length is in lines, from the line of its first token to that of its last.
 *
 *   node --import tsx scripts/longest-functions.ts            # the ten longest
 *   node --import tsx scripts/longest-functions.ts --top 25
 *   node --import tsx scripts/longest-functions.ts --over 120  # every function over 120 lines
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_DIRS = ['lib', 'spec', 'client', 'service', 'activities', 'workflows', 'warehouse', 'temporal', 'pipelines', 'bin'];
const SOURCE_FILE = /\.(ts|mts|mjs|js)$/;

export interface FunctionLength {
  name: string;
  file: string;
  line: number;
  lines: number;
}

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return SOURCE_FILE.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

const nameText = (n: ts.Node | undefined, sf: ts.SourceFile): string | undefined => {
  if (!n) return undefined;
  if (ts.isIdentifier(n) || ts.isPrivateIdentifier(n) || ts.isStringLiteral(n) || ts.isNumericLiteral(n)) return n.text;
  return n.getText(sf);
};

/** What a reader would call the function: its own name, else what it is assigned to or passed to. */
function functionName(fn: ts.FunctionLikeDeclaration, sf: ts.SourceFile): string {
  const own = fn.name ? nameText(fn.name, sf) : undefined;
  const cls = (n: ts.Node) => (ts.isClassLike(n.parent) && n.parent.name ? `${n.parent.name.text}.` : '');
  if (ts.isConstructorDeclaration(fn)) return `${cls(fn)}constructor`;
  if (own && (ts.isMethodDeclaration(fn) || ts.isGetAccessor(fn) || ts.isSetAccessor(fn))) return `${cls(fn)}${own}`;
  if (own) return own;
  const p = fn.parent;
  if (ts.isVariableDeclaration(p)) return nameText(p.name, sf) ?? '(anonymous)';
  if (ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) return `${ts.isPropertyDeclaration(p) ? cls(p) : ''}${nameText(p.name, sf)}`;
  if (ts.isBinaryExpression(p)) return p.left.getText(sf);
  if (ts.isCallExpression(p) || ts.isNewExpression(p)) return `(callback of ${p.expression.getText(sf).slice(0, 40)})`;
  if (ts.isExportAssignment(p)) return 'default';
  return '(anonymous)';
}

export function functionLengths(files = SOURCE_DIRS.flatMap((d) => sourceFiles(path.join(root, d)))): FunctionLength[] {
  const out: FunctionLength[] = [];
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (n: ts.Node) => {
      if (ts.isFunctionLike(n) && 'body' in n && n.body) {
        const fn = n as ts.FunctionLikeDeclaration;
        const start = sf.getLineAndCharacterOfPosition(fn.getStart(sf)).line;
        const end = sf.getLineAndCharacterOfPosition(fn.getEnd()).line;
        out.push({ name: functionName(fn, sf), file: path.relative(root, file), line: start + 1, lines: end - start + 1 });
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return out.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (flag: string) => {
    const i = process.argv.indexOf(flag);
    if (i === -1) return undefined;
    const v = Number(process.argv[i + 1]);
    if (!Number.isInteger(v) || v < 1) {
      console.error(`longest-functions: ${flag} takes a whole number of at least 1, not "${process.argv[i + 1] ?? ''}"`);
      process.exit(2);
    }
    return v;
  };
  const over = arg('--over');
  const all = functionLengths();
  const shown = over !== undefined ? all.filter((f) => f.lines > over) : all.slice(0, arg('--top') ?? 10);
  const w = Math.max(...shown.map((f) => `${f.file}:${f.line}`.length), 10);
  for (const f of shown) console.log(`${String(f.lines).padStart(5)}  ${`${f.file}:${f.line}`.padEnd(w)}  ${f.name}`);
  console.log(`${all.length} functions in ${new Set(all.map((f) => f.file)).size} files${over !== undefined ? `; ${shown.length} over ${over} lines` : ''}`);
}
