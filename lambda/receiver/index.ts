import { SQSClient } from '@aws-sdk/client-sqs';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { METRICS_NAMESPACE, RECEIVER_SERVICE_NAME, ReceiverDefaults } from '../../contracts/receiver';
import { metricCounter } from '../shared/metrics';
import { loadStageToken, secretsClientConfig } from '../shared/secret-tokens';
import { readReceiverSettings } from './settings';
import { type CountMetric, handleNotification } from './receiver';
import { TokenCache } from './token-cache';
import { errorSummary, lazyLog, receiverSqsClientConfig } from '../shared/runtime';

// The logger is loaded when the receiver first logs: a request stored as it should be writes no
// line but its metric's, and a cold start that logs nothing does not pay for Powertools' load.
const logger = lazyLog(() =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a deferred load, the point of this line
  (require('../shared/logger') as typeof import('../shared/logger')).createLogger(RECEIVER_SERVICE_NAME),
);
const settings = readReceiverSettings(process.env);
const sqs = new SQSClient(receiverSqsClientConfig(settings.enqueueBudgetMs));
const secrets = new SecretsManagerClient(secretsClientConfig(ReceiverDefaults.secretFetchBudgetMs));
const tokens = new TokenCache({
  load: (arn, stage) => loadStageToken(secrets, arn, stage, ReceiverDefaults.secretFetchBudgetMs),
  ttlMs: settings.tokenCacheTtlMs,
  mismatchRefreshIntervalMs: ReceiverDefaults.mismatchRefreshIntervalMs,
  onStaleUse: (arn, stage, error) =>
    logger.warn('Token reload failed; using the values loaded earlier', {
      secretArn: arn,
      stage,
      error: errorSummary(error),
    }),
});

const counter = metricCounter({
  namespace: METRICS_NAMESPACE,
  serviceName: RECEIVER_SERVICE_NAME,
  receiverName: settings.receiverName,
});
const count: CountMetric = (name, route, details, value) => counter(name, { Route: route }, details, value);

export async function handler(
  event: APIGatewayProxyEvent,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<APIGatewayProxyResult> {
  return handleNotification(event, {
    settings,
    sqs,
    tokens,
    logger,
    count,
    remainingTimeMs:
      typeof context?.getRemainingTimeInMillis === 'function' ? () => context.getRemainingTimeInMillis() : undefined,
  });
}
