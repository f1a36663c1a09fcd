import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { build } from 'esbuild';

export const ROOT = join(__dirname, '..');
export const HANDLER_SOURCE_DIR = join(ROOT, 'lambda');
/** Where bundles go; published with the package and loaded by the constructs. */
export const HANDLER_OUT_DIR = join(ROOT, 'dist', 'handlers');
const STAMP = join(HANDLER_OUT_DIR, '.source-hash');

/** Handlers are the folders of lambda/ that have an index.ts (lambda/shared is not one). */
export function handlerNames(): string[] {
  return readdirSync(HANDLER_SOURCE_DIR)
    .filter((name) => existsSync(join(HANDLER_SOURCE_DIR, name, 'index.ts')))
    .sort();
}

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}

/** A hash of everything a bundle is made from: its source folders, this script, the lock file. */
function sourceHash(dirs: readonly string[]): string {
  const hash = createHash('sha256');
  for (const file of [...dirs.flatMap(listFiles), __filename, join(ROOT, 'package-lock.json')].sort()) {
    hash.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/** Handlers import lambda/, the contracts they share with the constructs, and the simulator (the sandbox's). */
export function handlerSourceHash(): string {
  return sourceHash([HANDLER_SOURCE_DIR, join(ROOT, 'contracts'), join(ROOT, 'simulator')]);
}

export function bundlesAreFresh(): boolean {
  return (
    existsSync(STAMP) &&
    readFileSync(STAMP, 'utf8') === handlerSourceHash() &&
    handlerNames().every((name) => existsSync(join(HANDLER_OUT_DIR, name, 'index.js')))
  );
}

export interface BundleOptions {
  /** Bundle the AWS SDK (true) or leave `@aws-sdk/*` to the Lambda runtime (false). */
  readonly bundleAwsSdk?: boolean;
  /** Output folder. @default dist/handlers */
  readonly outDir?: string;
}

/**
 * The bundle's own entry: it loads the handler module and copies its exports onto
 * `module.exports` as plain properties. esbuild's CommonJS output would otherwise export each as a
 * getter that cannot be redefined, and a wrapper that patches the handler (an OpenTelemetry
 * layer's, `AWS_LAMBDA_EXEC_WRAPPER`) could not.
 */
export function patchableEntry(entry: string): string {
  return `const entry = require(${JSON.stringify(entry)});\nfor (const name of Object.keys(entry)) module.exports[name] = entry[name];\n`;
}

/** How a Lambda bundle is built: one minified CommonJS file with a source map, for the runtime the functions run on (`NODEJS_24_X`). */
export async function bundleLambdaEntry(
  entry: string,
  outfile: string,
  options: Pick<BundleOptions, 'bundleAwsSdk'> & { readonly replace?: Readonly<Record<string, string>> } = {},
): Promise<number> {
  mkdirSync(dirname(outfile), { recursive: true });
  // The bench's variants: a module of the handler's (an absolute path without its extension) bundled in place of another.
  const replace = options.replace ?? {};
  await build({
    plugins: [
      {
        name: 'replace',
        setup: (b) =>
          b.onResolve({ filter: /^\./ }, (args) => {
            const replacement = replace[join(args.resolveDir, args.path)];
            return replacement ? { path: replacement } : undefined;
          }),
      },
    ],
    stdin: { contents: patchableEntry(entry), resolveDir: dirname(entry), sourcefile: 'lambda-entry.js', loader: 'js' },
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    legalComments: 'none',
    external: options.bundleAwsSdk === false ? ['@aws-sdk/*', '@smithy/*'] : [],
    logLevel: 'warning',
  });
  return statSync(outfile).size;
}

/** Bundles every handler (`bundleLambdaEntry`) into `<outDir>/<handler>/index.js`. */
export async function bundleHandlers(options: BundleOptions = {}): Promise<Record<string, number>> {
  const outDir = options.outDir ?? HANDLER_OUT_DIR;
  rmSync(outDir, { recursive: true, force: true });
  const sizes: Record<string, number> = {};
  for (const name of handlerNames()) {
    sizes[name] = await bundleLambdaEntry(
      join(HANDLER_SOURCE_DIR, name, 'index.ts'),
      join(outDir, name, 'index.js'),
      options,
    );
  }
  if (outDir === HANDLER_OUT_DIR) writeFileSync(STAMP, handlerSourceHash());
  return sizes;
}

/** The command-line tool (`cdk-bank-webhooks`: simulate, check-endpoint), published as one file. */
export const CLI_OUT_FILE = join(ROOT, 'dist', 'cli', 'cdk-bank-webhooks.js');
/** The bank simulator as a module for users' tests: `require('cdk-bank-webhooks/simulator')` (the package's exports map). */
export const SIMULATOR_OUT_FILE = join(ROOT, 'dist', 'simulator', 'index.js');
const CLI_SOURCE_DIRS = ['simulator', 'cli', 'contracts'].map((dir) => join(ROOT, dir));
const CLI_STAMP = join(ROOT, 'dist', 'cli', '.source-hash');

export function cliIsFresh(): boolean {
  return (
    existsSync(CLI_STAMP) &&
    existsSync(CLI_OUT_FILE) &&
    existsSync(SIMULATOR_OUT_FILE) &&
    readFileSync(CLI_STAMP, 'utf8') === sourceHash(CLI_SOURCE_DIRS)
  );
}

/**
 * Bundles the CLI, and the simulator as a module with its type declarations, each with its
 * dependencies (node-forge), so that installing the construct library adds no runtime
 * dependency for them.
 */
export async function bundleCli(): Promise<number> {
  rmSync(join(ROOT, 'dist', 'cli'), { recursive: true, force: true });
  rmSync(join(ROOT, 'dist', 'simulator'), { recursive: true, force: true });
  // The CLI and the simulator run on the user's Node: the oldest `engines` allows.
  const common = {
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: true,
    sourcesContent: false,
    legalComments: 'none',
    logLevel: 'warning',
  } as const;
  await build({
    ...common,
    entryPoints: [join(ROOT, 'cli', 'index.ts')],
    outfile: CLI_OUT_FILE,
    banner: { js: '#!/usr/bin/env node' },
  });
  chmodSync(CLI_OUT_FILE, 0o755);
  await build({ ...common, entryPoints: [join(ROOT, 'simulator', 'index.ts')], outfile: SIMULATOR_OUT_FILE });
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.simulator.json')], {
    stdio: 'inherit',
  });
  writeFileSync(CLI_STAMP, sourceHash(CLI_SOURCE_DIRS));
  return statSync(CLI_OUT_FILE).size;
}

/**
 * jsii, with its generated tsconfig written beside ours (it would overwrite tsconfig.json), and
 * without its banner about this Node line's end of life (Lambda and CI run Node 24; a contributor's machine may run an older one).
 * `decimal` (EventAmount.decimal) is a C# keyword jsii warns about: it is a field of the published
 * events' JSON, kept as is; C# names the property `Decimal`, which is not a keyword.
 */
export function compileWithJsii(): void {
  execFileSync(
    process.execPath,
    [
      require.resolve('jsii/bin/jsii'),
      '--generate-tsconfig',
      'tsconfig.jsii.json',
      '--fail-on-warnings',
      '--silence-warnings',
      'JSII5018',
    ],
    {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION: process.versions.node.split('.')[0] },
    },
  );
}

/** The `.jsii` assembly at the package root, as jsii writes it. */
export const ASSEMBLY_FILE = join(ROOT, '.jsii');

/** Whether the assembly is newer than every source of the public API (lib/, contracts/, package.json). */
export function assemblyIsFresh(): boolean {
  if (!existsSync(ASSEMBLY_FILE)) return false;
  const built = statSync(ASSEMBLY_FILE).mtimeMs;
  const sources = [...listFiles(join(ROOT, 'lib')), ...listFiles(join(ROOT, 'contracts')), join(ROOT, 'package.json')];
  return sources.every((file) => statSync(file).mtimeMs <= built);
}
