import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { Construct } from 'constructs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import {
  BankStage,
  BankWebhookReceiver,
  type CooperativeConnectionProps,
  type BankWebhookReceiverProps,
} from '../../lib';

export const TEST_CREDENTIALS_ARN = 'arn:aws:secretsmanager:sa-east-1:111111111111:secret:bank-credentials-AbCdEf';

/** A bank connection for template tests: production-looking URLs and an imported credentials secret. */
export function testBankConnection(
  stack: Stack,
  overrides: Partial<CooperativeConnectionProps> = {},
): CooperativeConnectionProps {
  return {
    baseUrl: 'https://api.bank.example',
    registrationBaseUrl: 'https://api.bank.example/pagamentos',
    credentials:
      overrides.credentials ??
      (stack.node.tryFindChild('BankCredentials') as secretsmanager.ISecret | undefined) ??
      secretsmanager.Secret.fromSecretCompleteArn(stack, 'BankCredentials', TEST_CREDENTIALS_ARN),
    account: {
      cooperativa: '0101',
      posto: '02',
      conta: '123456',
      documento: '12345678000199',
      codigoBeneficiario: '54321',
    },
    ...overrides,
  };
}

/**
 * A maker of apps that synthesize into temporary directories (cdk-nag writes its report there),
 * all removed after the test file's tests.
 */
export function temporaryApps(prefix: string): () => App {
  const outdirs: string[] = [];
  afterAll(() => outdirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  return () => {
    const outdir = mkdtempSync(join(tmpdir(), prefix));
    outdirs.push(outdir);
    return new App({ outdir });
  };
}

/** The environment of the test stacks: a fixed account and the bank's region. */
export const TEST_ENV = { account: '111111111111', region: 'sa-east-1' };

/** A stack of the test environment, in `app` (a fresh one unless given). */
export function testStack(id = 'TestStack', app: App = new App()): Stack {
  return new Stack(app, id, { env: TEST_ENV });
}

/** Builds something in a fresh stack (`TestStack`, of a fresh app) and synthesizes its template. */
export function synthIn<T>(build: (stack: Stack) => T): { stack: Stack; built: T; template: Template } {
  const stack = testStack();
  const built = build(stack);
  return { stack, built, template: Template.fromStack(stack) };
}

/**
 * A BankWebhookReceiver (`Webhooks`) with the test bank connection and `props` over it; `configure`
 * adds props that need the stack. PRODUCTION unless `props` says (`stage: undefined` for the default).
 */
export function synthReceiver(
  props: Partial<BankWebhookReceiverProps> = {},
  configure?: (stack: Stack) => Partial<BankWebhookReceiverProps>,
) {
  const {
    stack,
    built: receiver,
    template,
  } = synthIn(
    (scope: Construct & Stack) =>
      new BankWebhookReceiver(scope, 'Webhooks', {
        bank: testBankConnection(scope),
        stage: BankStage.PRODUCTION,
        ...props,
        ...configure?.(scope),
      }),
  );
  return { stack, receiver, template };
}

/**
 * The settings a construct wrote as one JSON value in a function's environment (`Stack.toJsonString`):
 * a deploy-time value (a `Ref`, a `Fn::GetAtt`) that is a whole field comes back as that intrinsic.
 */
export function settingsIn<T>(fn: { Properties?: Record<string, unknown> }, name: string): T {
  const value = (fn.Properties as { Environment: { Variables: Record<string, unknown> } }).Environment.Variables[name];
  if (typeof value === 'string') return JSON.parse(value) as T;
  const tokens: unknown[] = [];
  const text = (value as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1]
    .map((part) => (typeof part === 'string' ? part : `@token${tokens.push(part) - 1}@`))
    .join('');
  return JSON.parse(text, (_key, field: unknown) => {
    const match = typeof field === 'string' ? /^@token(\d+)@$/.exec(field) : null;
    return match ? tokens[Number(match[1])] : field;
  }) as T;
}
