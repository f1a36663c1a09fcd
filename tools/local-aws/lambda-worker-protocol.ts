/** What `LocalFunction` and its worker process say to each other over IPC. */

/** Environment variables that tell a worker which module to load; not part of the function's own environment. */
export const WorkerEnv = {
  ENTRY: 'LOCAL_LAMBDA_ENTRY',
  EXPORT: 'LOCAL_LAMBDA_EXPORT',
  /** Where the runner's collector takes spans (otel-layer.ts); set by the runner, never by a template. */
  OTLP_TRACES_URL: 'LOCAL_OTLP_TRACES_URL',
} as const;

export interface SerializedError {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
}

export type WorkerRequest = {
  readonly type: 'invoke';
  readonly id: number;
  readonly event: unknown;
  /** Epoch milliseconds when the invocation times out. */
  readonly deadline: number;
  readonly requestId?: string;
};

export type WorkerReply =
  | { readonly type: 'ready' }
  | { readonly type: 'init-error'; readonly error: SerializedError }
  | { readonly type: 'result'; readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly type: 'result'; readonly id: number; readonly ok: false; readonly error: SerializedError };
