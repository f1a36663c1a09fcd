/**
 * The `tracing` prop (issue 54, item 1 in part): TracingMode.XRAY turns on X-Ray active tracing
 * on every function and the APIs' stages, as the deprecated `tracingEnabled: true` did (mapped to
 * it); both at once are refused; OFF is the default and changes nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { BankStage, BankWebhookReceiver, TracingMode } from '../../lib';
import { ADOT_JS_LAYER, adotJsLayerArn } from '../../lib/core/open-telemetry-layers';
import { synthReceiver, testBankConnection } from '../support/cdk';

function traced(template: Template): { functions: string[]; stages: boolean[] } {
  const resources = template.toJSON().Resources as Record<
    string,
    { Type: string; Properties?: { TracingConfig?: { Mode?: string }; TracingEnabled?: boolean; Description?: string } }
  >;
  return {
    // The receiver's functions; the stack's registration provider (shared by its receivers) is not one of them.
    functions: Object.values(resources)
      .filter(
        (r) =>
          r.Type === 'AWS::Lambda::Function' &&
          !/provider framework|^Registers the webhook URLs/.test(r.Properties?.Description ?? ''),
      )
      .map((r) => r.Properties?.TracingConfig?.Mode ?? 'off'),
    stages: Object.values(resources)
      .filter((r) => r.Type === 'AWS::ApiGateway::Stage')
      .map((r) => r.Properties?.TracingEnabled === true),
  };
}

it("traces the receiver's functions and its stage with X-Ray under TracingMode.XRAY, as the deprecated tracingEnabled did", () => {
  const xray = traced(synthReceiver({ tracing: TracingMode.XRAY, paymentRegistration: {} }).template);
  expect(new Set(xray.functions)).toEqual(new Set(['Active']));
  expect(xray.stages).toEqual([true]);
  expect(traced(synthReceiver({ tracingEnabled: true, paymentRegistration: {} }).template)).toEqual(xray);
});

it('traces nothing by default or under TracingMode.OFF', () => {
  for (const props of [{}, { tracing: TracingMode.OFF }]) {
    const off = traced(synthReceiver({ ...props, paymentRegistration: {} }).template);
    expect(new Set(off.functions)).toEqual(new Set(['off']));
    expect(off.stages).toEqual([false]);
  }
});

it('refuses tracing and tracingEnabled together, and a mode it does not know, naming each once', () => {
  let message = '';
  try {
    synthReceiver({ tracing: TracingMode.XRAY, tracingEnabled: true });
  } catch (error) {
    message = (error as Error).message;
  }
  expect(message).toContain(
    'tracingEnabled: is deprecated, and tracing is set too: keep tracing alone (tracingEnabled: true is tracing: TracingMode.XRAY)',
  );
  expect(message.split('tracingEnabled: is deprecated')).toHaveLength(2);
  expect(() => synthReceiver({ tracing: 'SOMETIMES' as TracingMode })).toThrow(
    /tracing: must be one of TracingMode.OFF, TracingMode.XRAY, TracingMode.OPENTELEMETRY, got "SOMETIMES"/,
  );
});

describe('TracingMode.OPENTELEMETRY', () => {
  type Fn = {
    Type: string;
    Properties: {
      Description?: string;
      Layers?: unknown[];
      TracingConfig?: { Mode?: string };
      Environment?: { Variables: Record<string, unknown> };
      Role?: { 'Fn::GetAtt': [string, string] };
    };
  };
  function receiverFunctions(template: Template): Fn[] {
    const resources = template.toJSON().Resources as Record<string, Fn>;
    return Object.values(resources).filter(
      (r) =>
        r.Type === 'AWS::Lambda::Function' &&
        !/provider framework|^Registers the webhook URLs/.test(r.Properties.Description ?? ''),
    );
  }

  it("attaches AWS's layer for the region to every function, with its wrapper, active tracing, the stage traced and the managed policy", () => {
    const { template } = synthReceiver({ tracing: TracingMode.OPENTELEMETRY, paymentRegistration: {} });
    const functions = receiverFunctions(template);
    expect(functions.length).toBeGreaterThanOrEqual(3);
    for (const fn of functions) {
      expect(fn.Properties.Layers).toEqual(['arn:aws:lambda:sa-east-1:615299751070:layer:AWSOpenTelemetryDistroJs:15']);
      expect(fn.Properties.TracingConfig?.Mode).toBe('Active');
      const env = fn.Properties.Environment!.Variables;
      expect(env.AWS_LAMBDA_EXEC_WRAPPER).toBe('/opt/otel-instrument');
      expect(env.OTEL_AWS_APPLICATION_SIGNALS_ENABLED).toBe('false');
      expect(env.OTEL_AWS_LAMBDA_FAST_START).toBeUndefined();
      const roles = template.toJSON().Resources as Record<string, { Properties: { ManagedPolicyArns?: unknown[] } }>;
      expect(JSON.stringify(roles[fn.Properties.Role!['Fn::GetAtt'][0]].Properties.ManagedPolicyArns)).toContain(
        ':iam::aws:policy/CloudWatchLambdaApplicationSignalsExecutionRolePolicy',
      );
    }
    expect(traced(template).stages).toEqual([true]);
  });

  it('takes a layer the user passes, fast start and Application Signals', () => {
    const layerArn = 'arn:aws:lambda:sa-east-1:222222222222:layer:my-otel:7';
    const { template } = synthReceiver({
      tracing: TracingMode.OPENTELEMETRY,
      openTelemetry: { layerArn, fastStart: true, applicationSignals: true },
      paymentRegistration: {},
    });
    for (const fn of receiverFunctions(template)) {
      expect(fn.Properties.Layers).toEqual([layerArn]);
      expect(fn.Properties.Environment!.Variables.OTEL_AWS_LAMBDA_FAST_START).toBe('true');
      expect(fn.Properties.Environment!.Variables.OTEL_AWS_APPLICATION_SIGNALS_ENABLED).toBe('true');
    }
  });

  it('adds no layer and no wrapper in the other modes', () => {
    for (const tracing of [TracingMode.OFF, TracingMode.XRAY]) {
      for (const fn of receiverFunctions(synthReceiver({ tracing, paymentRegistration: {} }).template)) {
        expect(fn.Properties.Layers).toBeUndefined();
        expect(fn.Properties.Environment!.Variables.AWS_LAMBDA_EXEC_WRAPPER).toBeUndefined();
      }
    }
  });

  it('refuses options without the mode, a malformed layer ARN, one of another region, and a region AWS publishes no layer in', () => {
    expect(() => synthReceiver({ tracing: TracingMode.XRAY, openTelemetry: { fastStart: true } })).toThrow(
      /openTelemetry: only applies to tracing: TracingMode.OPENTELEMETRY, got tracing XRAY: set that mode or remove openTelemetry/,
    );
    expect(() =>
      synthReceiver({ tracing: TracingMode.OPENTELEMETRY, openTelemetry: { layerArn: 'AWSOpenTelemetryDistroJs:15' } }),
    ).toThrow(
      /openTelemetry.layerArn: must be a Lambda layer version ARN such as .*, got "AWSOpenTelemetryDistroJs:15"/,
    );
    expect(() =>
      synthReceiver({
        tracing: TracingMode.OPENTELEMETRY,
        openTelemetry: { layerArn: 'arn:aws:lambda:us-east-1:615299751070:layer:AWSOpenTelemetryDistroJs:15' },
      }),
    ).toThrow(
      /openTelemetry.layerArn: is in us-east-1 and the stack in sa-east-1; Lambda attaches only a layer of the function's region/,
    );
    // The region's problem goes through the one collector with the others: one error names both.
    expect(() =>
      synthReceiver({
        tracing: TracingMode.OPENTELEMETRY,
        processorMemorySize: 1,
        openTelemetry: { layerArn: 'arn:aws:lambda:us-east-1:615299751070:layer:AWSOpenTelemetryDistroJs:15' },
      }),
    ).toThrow(
      /Invalid BankWebhookReceiver props at TestStack\/Webhooks \(2 problems\):\n.*processorMemorySize[\s\S]*openTelemetry\.layerArn: is in us-east-1|Invalid BankWebhookReceiver props at TestStack\/Webhooks \(2 problems\):\n.*openTelemetry\.layerArn: is in us-east-1[\s\S]*processorMemorySize/,
    );
    const app = new App();
    const stack = new Stack(app, 'Far', { env: { account: '111111111111', region: 'xx-nowhere-1' } });
    expect(
      () =>
        new BankWebhookReceiver(stack, 'Webhooks', {
          bank: testBankConnection(stack),
          stage: BankStage.PRODUCTION,
          tracing: TracingMode.OPENTELEMETRY,
        }),
    ).toThrow(
      /openTelemetry\.layerArn: is needed: AWS publishes no AWSOpenTelemetryDistroJs layer in xx-nowhere-1 for arm64 that this library knows \(ADOT v0.12.0\): pass one/,
    );
    const agnostic = new Stack(new App(), 'Agnostic');
    expect(
      () =>
        new BankWebhookReceiver(agnostic, 'Webhooks', {
          bank: testBankConnection(agnostic),
          stage: BankStage.PRODUCTION,
          tracing: TracingMode.OPENTELEMETRY,
        }),
    ).toThrow(
      /tracing: is TracingMode.OPENTELEMETRY, which needs the stack's region to choose AWS's layer, and the stack has none/,
    );
  });

  it("keeps the map in step with the handlers: every region has an ARN, and the bundled api is the one the layer's SDK registers", () => {
    for (const region of Object.keys(ADOT_JS_LAYER.regions)) {
      expect(adotJsLayerArn(region)).toMatch(
        new RegExp(`^arn:aws(-cn)?:lambda:${region}:\\d{12}:layer:AWSOpenTelemetryDistroJs:\\d+$`),
      );
    }
    expect(adotJsLayerArn('cn-north-1')).toMatch(/^arn:aws-cn:/);
    // One layer serves both architectures; the functions are arm64.
    expect(adotJsLayerArn('sa-east-1', 'x86_64')).toBe(adotJsLayerArn('sa-east-1', 'arm64'));
    expect(adotJsLayerArn('sa-east-1', 'riscv64')).toBeUndefined();
    // An api newer than the SDK's is refused by the SDK's global registry, and every span is then a no-op.
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    // Bundled into each handler at build time, so a dev dependency of the package.
    expect(pkg.devDependencies['@opentelemetry/api']).toBe(ADOT_JS_LAYER.openTelemetryApi);
  });
});
