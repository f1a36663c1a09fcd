import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as lambda from 'aws-cdk-lib/aws-lambda';

/**
 * The bundled code of one of the library's handlers, as built by `npm run build` into
 * `dist/handlers/<name>/`. Found relative to this file both when the library runs compiled
 * (dist/lib -> dist/handlers) and from its TypeScript sources (lib -> dist/handlers).
 */
export function handlerCode(name: string): lambda.Code {
  const candidates = [join(__dirname, '..', 'handlers', name), join(__dirname, '..', 'dist', 'handlers', name)];
  const found = candidates.find((dir) => existsSync(join(dir, 'index.js')));
  if (!found) {
    throw new Error(
      `The bundled '${name}' handler was not found (looked in ${candidates.join(' and ')}). ` +
        'In a checkout of cdk-bank-webhooks, run `npm run build`; an installed package ships it in dist/handlers.',
    );
  }
  return lambda.Code.fromAsset(found);
}
