/**
 * The `tracing` prop (issue 54, item 1 in part): TracingMode.XRAY turns on X-Ray active tracing
 * on every function and the APIs' stages, as the deprecated `tracingEnabled: true` did (mapped to
 * it); both at once are refused; OFF is the default and changes nothing.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { TracingMode } from '../../lib';
import { synthReceiver } from '../support/cdk';

function traced(template: Template): { functions: string[]; stages: boolean[] } {
  const resources = template.toJSON().Resources as Record<string, { Type: string; Properties?: { TracingConfig?: { Mode?: string }; TracingEnabled?: boolean; Description?: string } }>;
  return {
    // The receiver's functions; the stack's registration provider (shared by its receivers) is not one of them.
    functions: Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Function' && !/provider framework|^Registers the webhook URLs/.test(r.Properties?.Description ?? '')).map((r) => r.Properties?.TracingConfig?.Mode ?? 'off'),
    stages: Object.values(resources).filter((r) => r.Type === 'AWS::ApiGateway::Stage').map((r) => r.Properties?.TracingEnabled === true),
  };
}

it('traces the receiver\'s functions and its stage with X-Ray under TracingMode.XRAY, as the deprecated tracingEnabled did', () => {
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
  expect(message).toContain('tracingEnabled: is deprecated, and tracing is set too: keep tracing alone (tracingEnabled: true is tracing: TracingMode.XRAY)');
  expect(message.split('tracingEnabled: is deprecated')).toHaveLength(2);
  expect(() => synthReceiver({ tracing: 'SOMETIMES' as TracingMode })).toThrow(/tracing: must be TracingMode.OFF or TracingMode.XRAY, got "SOMETIMES"/);
});
