import type { PropsValidation } from './props-validation';

/** How the receiver's functions and its APIs' stages are traced. */
export enum TracingMode {
  /** No tracing. */
  OFF = 'OFF',
  /** AWS X-Ray active tracing on every function and on the APIs' stages (the first hop). */
  XRAY = 'XRAY',
}

/** The tracing props of a part: the mode, and the flag it replaces. */
export interface TracingProps {
  /**
   * How the functions (and, on an endpoint, its APIs' stages) are traced.
   * @default TracingMode.OFF
   */
  readonly tracing?: TracingMode;
  /**
   * X-Ray active tracing.
   * @deprecated use `tracing: TracingMode.XRAY`; removed in 1.0
   * @default false
   */
  readonly tracingEnabled?: boolean;
}

/** Checks the tracing props under `prefix`: a known mode, and not both the mode and the flag it replaces. */
export function checkTracing(v: PropsValidation, props: TracingProps, prefix = ''): void {
  if (props.tracing !== undefined) v.check(Object.values(TracingMode).includes(props.tracing), `${prefix}tracing`, `must be TracingMode.OFF or TracingMode.XRAY, got "${props.tracing}"`);
  v.check(props.tracing === undefined || props.tracingEnabled === undefined, `${prefix}tracingEnabled`,
    'is deprecated, and tracing is set too: keep tracing alone (tracingEnabled: true is tracing: TracingMode.XRAY)');
}

/** Whether X-Ray active tracing is on. */
export function xrayTracing(props: TracingProps): boolean {
  return props.tracing === undefined ? props.tracingEnabled === true : props.tracing === TracingMode.XRAY;
}
