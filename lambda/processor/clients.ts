/** Settings of the processor's AWS SDK clients: a few attempts, and connection and request timeouts well inside the function's. */
export const PROCESSOR_CLIENT_CONFIG = { maxAttempts: 3, requestHandler: { connectionTimeout: 2_000, requestTimeout: 5_000 } };
