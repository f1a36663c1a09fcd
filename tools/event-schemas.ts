/**
 * Checks event details against the JSON Schemas the package ships (schemas/events/), with Ajv:
 * the local runner and the tests hold every event the processor publishes to its contract.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import { BankEventDetailType } from '../contracts/events';

const SCHEMA_DIR = join(__dirname, '..', 'schemas', 'events');

let validators: Map<string, ValidateFunction> | undefined;

function load(): Map<string, ValidateFunction> {
  const ajv = new Ajv({ allErrors: true, strict: true });
  return new Map(
    Object.values(BankEventDetailType).map((detailType) => {
      const schema = JSON.parse(readFileSync(join(SCHEMA_DIR, schemaFileName(detailType)), 'utf8')) as object;
      return [detailType, ajv.compile(schema)];
    }),
  );
}

/** What is wrong with a detail of `detailType`, in words; empty when it is valid. */
export function detailProblems(detailType: string, detail: unknown): string[] {
  validators ??= load();
  const validate = validators.get(detailType);
  if (!validate) return [`"${detailType}" is not a detail type of cdk-bank-webhooks`];
  if (validate(detail)) return [];
  return (validate.errors ?? []).map(
    (e) =>
      `${detailType}: ${e.instancePath || '(detail)'} ${e.message ?? 'is invalid'}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
  );
}

/** File name of a detail type's JSON Schema under schemas/events/: "Boleto Settled" → "boleto-settled.schema.json". */
export function schemaFileName(detailType: BankEventDetailType): string {
  return `${detailType.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.schema.json`;
}
