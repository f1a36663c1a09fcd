/**
 * The stack's front doors, locally: the webhook API's stage (a route per notification kind) and,
 * for a receiver with Pix, the Pix API's (its validation call at the root and its callbacks), each
 * served over TLS and handing every request to the receiver function, as API Gateway does.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { PIX_ROUTE, ROUTES } from '../../contracts/receiver';
import { LocalApiGateway, type ProxyExchange } from '../local-aws/api-gateway';
import type { LocalLogs } from '../local-aws/logs-server';
import type { PemPair } from '../../simulator/certificates';
import type { ApiDescription, CloudFormationTemplate, ReceiverDeployment } from './template';

/** The front doors, started, and their URLs. */
export interface FrontDoors {
  readonly gateway: LocalApiGateway;
  /** The webhook API's stage URL (`https://127.0.0.1:<port>/<stage>/`). */
  readonly apiUrl: string;
  /** The Pix API's, without a trailing slash: the URL to register for each key. */
  readonly pixGateway?: LocalApiGateway;
  readonly pixUrl?: string;
}

/** What the front doors hand each request to, and tell of each answer. */
export interface FrontDoorWiring {
  readonly tls: PemPair;
  /** Invokes the receiver function with one request. */
  readonly invokeReceiver: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
  /** Told of every request answered, in order of answer. */
  readonly onResponse: (exchange: ProxyExchange) => void;
  /** Where each stage's access log goes (its group, as the template names it). */
  readonly logs: LocalLogs;
}

/** Starts the template's front doors (the Pix API's only where the deployment has one). */
export async function startFrontDoors(
  template: CloudFormationTemplate,
  d: ReceiverDeployment,
  wiring: FrontDoorWiring,
): Promise<FrontDoors> {
  const gatewayOf = (
    api: ApiDescription,
    routes: Record<string, (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>>,
  ) =>
    new LocalApiGateway({
      tls: wiring.tls,
      stage: api.stageName,
      functionTimeoutMs: d.receiver.timeoutSeconds * 1000,
      routes,
      onResponse: (exchange) => {
        wiring.onResponse(exchange);
        if (api.accessLogGroup) wiring.logs.append(api.accessLogGroup, accessLogLine(exchange));
      },
      binaryMediaTypes: (template.Resources[api.restApi].Properties?.BinaryMediaTypes as string[] | undefined) ?? [],
    });
  const gateway = gatewayOf(d.api, Object.fromEntries(ROUTES.map((route) => [route, wiring.invokeReceiver])));
  const apiUrl = await gateway.start();
  if (!d.pixApi) return { gateway, apiUrl };
  // The Pix API's root (the validation call), /pix, and Pix Automático's /rec and /cobr where the template serves them.
  const pixRoutes = ['', PIX_ROUTE, ...d.pixApi.paths.filter((path) => path !== PIX_ROUTE)];
  const pixGateway = gatewayOf(d.pixApi, Object.fromEntries(pixRoutes.map((route) => [route, wiring.invokeReceiver])));
  return { gateway, apiUrl, pixGateway, pixUrl: (await pixGateway.start()).replace(/\/$/, '') };
}

/** An access log line as the stage's format writes it (the fields a runbook filters on; the rest left out). */
function accessLogLine(exchange: ProxyExchange): string {
  return JSON.stringify({
    requestId: exchange.requestId ?? '-',
    requestTime: new Date().toISOString(),
    sourceIp: '127.0.0.1',
    httpMethod: 'POST',
    resourcePath: `/${exchange.route}`,
    status: String(exchange.status),
    responseLatency: String(exchange.durationMs),
  });
}
