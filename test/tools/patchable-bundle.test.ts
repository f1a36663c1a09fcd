/**
 * The handler bundles can be patched by a wrapper (issue 54, item 2: an OpenTelemetry layer's
 * `AWS_LAMBDA_EXEC_WRAPPER` redefines `handler`): esbuild's CommonJS output exports each name as a
 * getter that cannot be redefined, so each bundle's entry copies the exports onto
 * `module.exports` as plain, writable and configurable properties.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleLambdaEntry, HANDLER_OUT_DIR } from '../../tools/bundle-handlers';

const dir = mkdtempSync(join(tmpdir(), 'patchable-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('exports handler as a property a wrapper can redefine, and the wrapped handler is what the runtime then calls', async () => {
  const entry = join(dir, 'index.ts');
  writeFileSync(
    entry,
    'export async function handler(event: { n: number }): Promise<number> { return event.n + 1; }\n',
  );
  await bundleLambdaEntry(entry, join(dir, 'out', 'index.js'));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const bundle = require(join(dir, 'out', 'index.js')) as { handler: (event: { n: number }) => Promise<number> };
  const descriptor = Object.getOwnPropertyDescriptor(bundle, 'handler')!;
  expect(descriptor).toMatchObject({ writable: true, configurable: true, enumerable: true });
  const original = bundle.handler;
  // What a wrapper does: replace the export with one that calls the original.
  Object.defineProperty(bundle, 'handler', {
    value: async (event: { n: number }) => 10 * (await original(event)),
    configurable: true,
    writable: true,
  });
  expect(await bundle.handler({ n: 1 })).toBe(20);
});

it('builds every handler of the package that way', () => {
  for (const name of readdirSync(HANDLER_OUT_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)) {
    const text = readFileSync(join(HANDLER_OUT_DIR, name, 'index.js'), 'utf8');
    expect({
      name,
      patchable: /for\((?:const|let) [\w$]+ of Object\.keys\([\w$]+\)\)module\.exports\[[\w$]+\]=[\w$]+\[[\w$]+\]/.test(
        text,
      ),
    }).toEqual({ name, patchable: true });
  }
});
