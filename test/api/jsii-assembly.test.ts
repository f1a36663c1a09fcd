/**
 * The jsii assembly (what Python, Java and .NET users get) holds every export of the public API,
 * and nothing TypeScript users do not see.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';
import { ASSEMBLY_FILE } from '../../tools/bundle-handlers';

const ROOT = join(__dirname, '..', '..');

/** The names `lib/index.ts` exports, as TypeScript resolves them. */
function publicExports(): string[] {
  const entry = join(ROOT, 'lib', 'index.ts');
  const program = ts.createProgram([entry], {
    module: ts.ModuleKind.CommonJS,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  return checker
    .getExportsOfModule(module)
    .map((symbol) => symbol.getName())
    .sort();
}

interface Assembly {
  readonly name: string;
  readonly types: Record<string, { readonly name: string; readonly kind: string; readonly namespace?: string }>;
  readonly targets?: Record<string, unknown>;
}

const assembly = JSON.parse(readFileSync(ASSEMBLY_FILE, 'utf8')) as Assembly;

it('holds every export of lib/index.ts, and only those', () => {
  const inAssembly = Object.values(assembly.types)
    .filter((type) => !type.namespace)
    .map((type) => type.name)
    .sort();
  expect(inAssembly).toEqual(publicExports());
});

it('carries the constants users match on: detail types, metric names, constants', () => {
  const kinds = Object.fromEntries(Object.values(assembly.types).map((type) => [type.name, type.kind]));
  expect(kinds).toMatchObject({
    BankEventDetailType: 'enum',
    ProcessorMetric: 'enum',
    ReceiverMetric: 'enum',
    SweepMetric: 'enum',
    QuarantineAttribute: 'enum',
    RegistrationAttribute: 'enum',
    RegistrationResourceType: 'enum',
    BankWebhooksConstants: 'class',
    BankWebhookReceiver: 'class',
    BankWebhookEndpoint: 'class',
    SettlementProcessor: 'class',
    ReconciliationSweep: 'class',
    BoletoSettledDetail: 'interface',
    BankWebhookReceiverProps: 'interface',
  });
  expect(assembly.targets).toMatchObject({ python: { distName: 'cdk-bank-webhooks', module: 'cdk_bank_webhooks' } });
});
