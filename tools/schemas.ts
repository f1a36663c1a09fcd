/**
 * `npm run schemas`: one JSON Schema per event detail type, generated from the interfaces of
 * contracts/events.ts (the same ones the processor builds and consumers import), into
 * schemas/events/. The package ships them; a test fails when they are not current.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGenerator } from 'ts-json-schema-generator';
import { BankEventDetailType, DETAIL_INTERFACE_OF_TYPE, EVENT_DETAIL_VERSION } from '../contracts/events';
import { schemaFileName } from './event-schemas';

export const ROOT = join(__dirname, '..');
export const SCHEMA_DIR = join(ROOT, 'schemas', 'events');

/** Every detail type's schema as the text written to schemas/events/<file>. */
export function generateEventSchemas(): Map<string, string> {
  const generator = createGenerator({
    path: join(ROOT, 'contracts', 'events.ts'),
    tsconfig: join(ROOT, 'tsconfig.json'),
    expose: 'export',
    jsDoc: 'extended',
    skipTypeCheck: true,
  });
  const schemas = new Map<string, string>();
  for (const detailType of Object.values(BankEventDetailType)) {
    const schema = generator.createSchema(DETAIL_INTERFACE_OF_TYPE[detailType]);
    const document = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      $id: `cdk-bank-webhooks/events/v${EVENT_DETAIL_VERSION}/${schemaFileName(detailType)}`,
      title: `${detailType} (detail version ${EVENT_DETAIL_VERSION})`,
      description: `The detail of a "${detailType}" event published by cdk-bank-webhooks.`,
      ...Object.fromEntries(Object.entries(schema).filter(([key]) => key !== '$schema')),
    };
    schemas.set(schemaFileName(detailType), `${JSON.stringify(document, null, 2)}\n`);
  }
  return schemas;
}

if (require.main === module) {
  mkdirSync(SCHEMA_DIR, { recursive: true });
  for (const [file, text] of generateEventSchemas()) {
    writeFileSync(join(SCHEMA_DIR, file), text);
    console.log(`wrote schemas/events/${file}`);
  }
}
