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

it("marks a receiver entry's provider settings deprecated, and leaves a standalone registration's as they are", () => {
  type Struct = {
    readonly properties?: { readonly name: string; readonly docs?: { readonly stability?: string } }[];
    readonly interfaces?: string[];
  };
  const types = assembly.types as unknown as Record<string, Struct>;
  const named = (name: string) => Object.entries(types).find(([fqn]) => fqn.endsWith(`.${name}`))![1];
  /** Each property a struct has (its bases' too), with its stability. */
  const stabilities = (name: string): Record<string, string> => {
    const struct = named(name);
    return Object.assign(
      {},
      ...(struct.interfaces ?? []).map((base) => stabilities(base.split('.').pop()!)),
      Object.fromEntries((struct.properties ?? []).map((p) => [p.name, p.docs?.stability ?? 'the package’s'])),
    ) as Record<string, string>;
  };
  const provider = ['vpc', 'vpcSubnets', 'securityGroups', 'logEncryptionKey'];
  for (const entry of ['BoletoWebhookContractOptions', 'PaymentWebhookRegistrationOptions']) {
    const props = stabilities(entry);
    for (const name of provider)
      expect({ entry, name, stability: props[name] }).toEqual({ entry, name, stability: 'deprecated' });
    expect(props.tokenVersion).not.toBe('deprecated');
  }
  for (const standalone of [
    'BoletoWebhookContractProps',
    'PaymentWebhookRegistrationProps',
    'RegistrationResourceOptions',
  ]) {
    const props = stabilities(standalone);
    for (const name of provider)
      expect({ standalone, name, deprecated: props[name] === 'deprecated' }).toEqual({
        standalone,
        name,
        deprecated: false,
      });
  }
  // The entry keeps every property it had: code written against it still compiles.
  expect(Object.keys(stabilities('BoletoWebhookContractOptions')).sort()).toEqual(
    expect.arrayContaining([
      'cooperativa',
      'posto',
      'codigoBeneficiario',
      'eventos',
      'tokenVersion',
      'removalPolicy',
      'takeOverExisting',
      ...provider,
    ]),
  );
});
