export { simulatorConnection, simulatorCredentials } from '../../tools/local-runner/bank-credentials';
