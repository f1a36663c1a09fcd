/**
 * The import graph of the sources (relative imports between files of the repository, type-only
 * ones included) and the layering rules it must keep (docs/development.md, "Layers"):
 *
 * - `lambda/`: handler folders (those with an `index.ts`) import only the layers below them and
 *   `contracts/`, never another handler's folder; layers go one way, shared < bank < store.
 * - `lib/`: `lib/core/` is below every part; a part imports `lib/core/` and `contracts/`, never
 *   a sibling part, but for a part built on another, which may import that part's types only.
 * - `tools/` never imports an example, nor a handler folder (only the layers under them).
 * - `lib/` and `lambda/` never import each other; `contracts/` imports nothing but itself.
 * - No import cycle anywhere.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, sep } from 'node:path';
import * as ts from 'typescript';

/** One import of one file by another (paths relative to the repository, with `/`). */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
  /** `import type`, or every name imported is a type. */
  readonly typeOnly: boolean;
}

export enum Rule {
  HANDLER_INTO_HANDLER = 'a handler folder imports another handler folder',
  LAYER_UPWARD = 'a lambda layer imports a handler folder or a layer above it',
  UNKNOWN_LAMBDA_FOLDER = 'a lambda folder that is neither a handler (with index.ts) nor a known layer',
  CORE_INTO_PART = 'lib/core imports a part or the facade',
  PART_INTO_SIBLING = 'a part of lib imports a sibling part',
  PART_INTO_FACADE = 'a part of lib imports the facade or the package index',
  TOOLS_INTO_EXAMPLES = 'tools import an example',
  TOOLS_INTO_HANDLER = "tools import a handler folder's internals",
  LIB_LAMBDA = 'lib and lambda import each other',
  CONTRACTS_OUTWARD = 'contracts import something outside contracts',
  SIMULATOR_INTO_LAMBDA = "a lambda folder other than the sandbox's imports the simulator",
  FAMILY_INTERNALS = 'a file outside an API family (lambda/bank/<family>/) imports one of its files other than its index.ts (or, intakes.ts, its receiving.ts)',
  LIB_FAMILY_UPWARD = "an API family's layer under lib/families/ imports something other than lib/core and its own folder",
  FAMILY_BY_NAME = "a handler (but the simulator's host), the store or the CLI imports an API family's folder (they reach a family through families.ts, the receiver through intakes.ts)",
  CYCLE = 'an import cycle',
}

export interface Violation {
  readonly rule: Rule;
  readonly from: string;
  readonly to: string;
}

/** The lambda layers, lowest first: a layer imports only those before it. */
export const LAMBDA_LAYERS = ['shared', 'bank', 'store'] as const;

/**
 * Parts of lib/ built on another part: they may import its types (a sweep takes a processor),
 * never its values.
 */
export const BUILT_ON: Readonly<Record<string, readonly string[]>> = { reconciliation: ['processor', 'registration'] };

/** The one handler folder that hosts the simulator (BankSandbox's): the others verify against the bank, never a simulator. */
export const SIMULATOR_HOST = 'sandbox';

/** The folders whose files the graph covers. */
export const SOURCE_DIRS = ['contracts', 'lib', 'lambda', 'tools', 'simulator', 'cli', 'examples'] as const;

const toPosix = (path: string) => path.split(sep).join('/');

/** Every TypeScript file under `dirs` of `root` (relative, with `/`). */
export function sourceFiles(root: string, dirs: readonly string[] = SOURCE_DIRS): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir)).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(join(root, path)).isDirectory()) return name === 'node_modules' ? [] : walk(path);
      return /\.(m?ts)$/.test(name) && !name.endsWith('.d.ts') ? [toPosix(path)] : [];
    });
  return dirs
    .filter((dir) => existsSync(join(root, dir)))
    .flatMap((dir) => (statSync(join(root, dir)).isDirectory() ? walk(dir) : [toPosix(dir)]))
    .sort();
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return (
    !clause.name &&
    !!named &&
    ts.isNamedImports(named) &&
    named.elements.length > 0 &&
    named.elements.every((e) => e.isTypeOnly)
  );
}

function isTypeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return (
    !!clause && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly)
  );
}

/** The relative imports of one file (`file`, holding `text`), resolved against `known` files. */
export function importsOf(file: string, text: string, known: ReadonlySet<string>): ImportEdge[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const edges: ImportEdge[] = [];
  const add = (specifier: string, typeOnly: boolean) => {
    if (!specifier.startsWith('.')) return;
    const base = posix.normalize(posix.join(posix.dirname(file), specifier));
    const to = [`${base}.ts`, `${base}/index.ts`, base, base.replace(/\.js$/, '.ts')].find((candidate) =>
      known.has(candidate),
    );
    if (to) edges.push({ from: file, to, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier))
      add(node.moduleSpecifier.text, isTypeOnlyImport(node));
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      add(node.moduleSpecifier.text, isTypeOnlyExport(node));
    else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      add(node.moduleReference.expression.text, node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.arguments.length === 1 &&
      ts.isStringLiteral(node.arguments[0]) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
    ) {
      add(node.arguments[0].text, false);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node.argument.literal.text, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

/** The import graph of the repository at `root`, plus `planted` files (path to text) read as if they were there. */
export function importGraph(root: string, planted: Readonly<Record<string, string>> = {}): ImportEdge[] {
  const files = [...new Set([...sourceFiles(root), ...Object.keys(planted)])];
  const known = new Set(files);
  return files.flatMap((file) => importsOf(file, planted[file] ?? readFileSync(join(root, file), 'utf8'), known));
}

/** The folder a path sits in right under `top` (`lambda/bank/client.ts` → `bank`), or undefined at `top` itself. */
function folderUnder(path: string, top: string): string | undefined {
  const [head, folder, ...rest] = path.split('/');
  return head === top && rest.length > 0 ? folder : undefined;
}

/** Whether a lambda folder is a handler: it has an index.ts (planted files count). */
function lambdaHandlers(files: readonly string[]): Set<string> {
  return new Set(files.filter((file) => /^lambda\/[^/]+\/index\.ts$/.test(file)).map((file) => file.split('/')[1]));
}

/** The API family a file belongs to (`lambda/bank/<family>/...`; `base/` is what they share, no family). */
/** The API family of a file under lib/families/ (its folder there). */
function libFamilyOf(file: string): string | undefined {
  return /^lib\/families\/([^/]+)\//.exec(file)?.[1];
}

function familyOf(file: string): string | undefined {
  const match = /^lambda\/bank\/([^/]+)\//.exec(file);
  return match && match[1] !== 'base' ? match[1] : undefined;
}

/** Every edge that breaks a layering rule, and every cycle (one violation per edge in a cycle). */
export function layerViolations(edges: readonly ImportEdge[]): Violation[] {
  const files = [...new Set(edges.flatMap((e) => [e.from, e.to]))];
  const handlers = lambdaHandlers(files);
  const layerRank = (folder: string) => (LAMBDA_LAYERS as readonly string[]).indexOf(folder);
  const violations: Violation[] = [];
  const flag = (rule: Rule, edge: ImportEdge) => violations.push({ rule, from: edge.from, to: edge.to });
  const unknown = new Set<string>();
  for (const file of files.filter((f) => f.startsWith('lambda/')).sort()) {
    const folder = folderUnder(file, 'lambda');
    if (!folder || handlers.has(folder) || layerRank(folder) >= 0 || unknown.has(folder)) continue;
    unknown.add(folder);
    violations.push({ rule: Rule.UNKNOWN_LAMBDA_FOLDER, from: file, to: `lambda/${folder}/` });
  }
  for (const edge of edges) {
    const [fromTop] = edge.from.split('/');
    const [toTop] = edge.to.split('/');
    if ((fromTop === 'lib' && toTop === 'lambda') || (fromTop === 'lambda' && toTop === 'lib'))
      flag(Rule.LIB_LAMBDA, edge);
    if (fromTop === 'contracts' && toTop !== 'contracts') flag(Rule.CONTRACTS_OUTWARD, edge);
    if (fromTop === 'lambda' && toTop === 'simulator' && folderUnder(edge.from, 'lambda') !== SIMULATOR_HOST)
      flag(Rule.SIMULATOR_INTO_LAMBDA, edge);
    if (fromTop === 'lambda' && toTop === 'lambda') {
      const [from, to] = [folderUnder(edge.from, 'lambda'), folderUnder(edge.to, 'lambda')];
      if (from && to && from !== to) {
        if (handlers.has(from) && handlers.has(to)) flag(Rule.HANDLER_INTO_HANDLER, edge);
        else if (!handlers.has(from) && !unknown.has(from) && (handlers.has(to) || layerRank(to) > layerRank(from)))
          flag(Rule.LAYER_UPWARD, edge);
      }
    }
    if (fromTop === 'lib' && toTop === 'lib') {
      const [from, to] = [folderUnder(edge.from, 'lib'), folderUnder(edge.to, 'lib')];
      // lib/families/<family>/: what one API family adds to the constructs, over lib/core, under every part.
      const intoOtherFamily = to !== 'families' || libFamilyOf(edge.from) !== libFamilyOf(edge.to);
      if (from === 'families' && to !== 'core' && intoOtherFamily) flag(Rule.LIB_FAMILY_UPWARD, edge);
      else if (from === 'core' && to !== 'core') flag(Rule.CORE_INTO_PART, edge);
      else if (from && from !== 'core' && !to) flag(Rule.PART_INTO_FACADE, edge);
      else if (
        from &&
        to &&
        from !== 'core' &&
        to !== 'core' &&
        from !== 'families' &&
        to !== 'families' &&
        from !== to &&
        !(edge.typeOnly && BUILT_ON[from]?.includes(to))
      )
        flag(Rule.PART_INTO_SIBLING, edge);
    }
    const family = familyOf(edge.to);
    const fromFolder = fromTop === 'lambda' ? folderUnder(edge.from, 'lambda') : undefined;
    const byName =
      family &&
      (fromTop === 'cli' ||
        fromFolder === 'store' ||
        (fromFolder && handlers.has(fromFolder) && fromFolder !== SIMULATOR_HOST));
    if (byName) flag(Rule.FAMILY_BY_NAME, edge);
    else if (
      fromTop === 'lambda' &&
      family &&
      familyOf(edge.from) !== family &&
      edge.to !== `lambda/bank/${family}/index.ts` &&
      !(edge.from === 'lambda/bank/intakes.ts' && edge.to === `lambda/bank/${family}/receiving.ts`)
    )
      flag(Rule.FAMILY_INTERNALS, edge);
    if (fromTop === 'tools' && toTop === 'examples') flag(Rule.TOOLS_INTO_EXAMPLES, edge);
    if (fromTop === 'tools' && toTop === 'lambda' && handlers.has(folderUnder(edge.to, 'lambda') ?? ''))
      flag(Rule.TOOLS_INTO_HANDLER, edge);
  }
  for (const cycle of importCycles(edges)) {
    cycle.forEach((from, i) => violations.push({ rule: Rule.CYCLE, from, to: cycle[(i + 1) % cycle.length] }));
  }
  return violations;
}

/** Each import cycle once, as the files in import order (Tarjan's strongly connected components, then a path through each). */
export function importCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;
  const connect = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        connect(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (next.get(node) ?? []).includes(node)) components.push(component);
    }
  };
  for (const node of next.keys()) if (!index.has(node)) connect(node);
  // The shortest cycle through each component's first file (breadth first, inside the component).
  return components.map((component) => {
    const members = new Set(component);
    const start = [...component].sort()[0];
    const parent = new Map<string, string>();
    const queue = [start];
    while (queue.length) {
      const at = queue.shift()!;
      for (const to of (next.get(at) ?? []).filter((n) => members.has(n))) {
        if (to === start) {
          const path = [at];
          while (path[0] !== start) path.unshift(parent.get(path[0])!);
          return path;
        }
        if (!parent.has(to)) {
          parent.set(to, at);
          queue.push(to);
        }
      }
    }
    return component;
  });
}

/** Files of `dirs` with more than `maxLines` lines. */
export function longFiles(
  root: string,
  dirs: readonly string[],
  maxLines: number,
  planted: Record<string, string> = {},
): Array<{ file: string; lines: number }> {
  const lineCount = (text: string) => text.split('\n').length - 1;
  const real = sourceFiles(root, dirs).map((file) => ({
    file,
    lines: lineCount(readFileSync(join(root, file), 'utf8')),
  }));
  const extra = Object.entries(planted)
    .filter(([file]) => dirs.some((d) => file.startsWith(`${d}/`)))
    .map(([file, text]) => ({ file, lines: lineCount(text) }));
  return [...real, ...extra].filter(({ lines }) => lines > maxLines);
}
