/**
 * The deployed simulator (BankSandbox's function) run locally as the other functions are
 * (tools/local-runner/local-sandbox.ts), for the tests of its handler.
 */
export {
  type LocalSandbox as HostedSimulator,
  startLocalSandbox as startHostedSimulator,
} from '../../tools/local-runner/local-sandbox';
