/** The endpoint's Pix API: its mutual-TLS domain (the bank's API has none). */
import { Annotations, CfnOutput, Duration } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as route53targets from 'aws-cdk-lib/aws-route53-targets';
import * as s3assets from 'aws-cdk-lib/aws-s3-assets';
import type { Construct } from 'constructs';
import { normalizedDn, PIX_ROUTE, type PixClientCertificatePins, ReceiverMetric } from '../../contracts/receiver';
import { Runbook, thresholdAlarm } from '../core/alarms';
import { normalizedFingerprint, PIX_CERTIFICATE_WARNING_DAYS, type PixDomainProps } from '../families/pix/receiver';
import type { ReceiverMetricOf } from './endpoint-alarms';

/**
 * The Pix API's mutual-TLS domain, made in the endpoint's scope (its construct paths are the
 * endpoint's): the truststore, the domain, its alias (or an output to point a record at), the pins
 * for the receiver's settings, and the alarm on the provider's certificate's expiry.
 */
export function pixMutualTlsDomain(
  scope: Construct,
  api: apigateway.RestApi,
  domain: PixDomainProps,
  metric: ReceiverMetricOf,
): { pins: PixClientCertificatePins; expiryAlarm: cloudwatch.Alarm } {
  const t = domain.truststore;
  const asset = t.file ? new s3assets.Asset(scope, 'PixTruststore', { path: t.file }) : undefined;
  const truststore = asset
    ? { bucket: asset.bucket, key: asset.s3ObjectKey }
    : { bucket: t.bucket!, key: t.key!, ...(t.version ? { version: t.version } : {}) };
  const name = new apigateway.DomainName(scope, 'PixDomain', {
    domainName: domain.domainName,
    certificate: domain.certificate,
    endpointType: apigateway.EndpointType.REGIONAL,
    securityPolicy: apigateway.SecurityPolicy.TLS_1_2,
    mtls: truststore,
    mapping: api,
  });
  new CfnOutput(scope, 'PixUrl', {
    description:
      "The Pix API's URL on its mutual-TLS domain: each key's webhookUrl (the provider appends /pix); the default execute-api endpoint is disabled",
    value: `https://${domain.domainName}`,
  });
  if (domain.hostedZone) {
    new route53.ARecord(scope, 'PixDomainAlias', {
      zone: domain.hostedZone,
      recordName: domain.domainName,
      target: route53.RecordTarget.fromAlias(new route53targets.ApiGatewayDomain(name)),
    });
  } else {
    new CfnOutput(scope, 'PixDomainTarget', {
      description: `Point ${domain.domainName} (an alias or CNAME record) at this regional target: the Pix API's mutual-TLS domain`,
      value: name.domainNameAliasDomainName,
    });
  }
  // Only the provider's own certificate, by fingerprint or subject (its chain alone admits any certificate its CA issued).
  const pinned = domain.pinnedCertificates;
  const pins = {
    fingerprints: (pinned.fingerprints ?? []).map(normalizedFingerprint),
    subjects: [...(pinned.subjects ?? [])],
    ...(pinned.issuers?.length ? { issuers: pinned.issuers.map(normalizedDn) } : {}),
  };
  if (pins.subjects.length && !pins.issuers) {
    Annotations.of(scope).addWarningV2(
      'cdk-bank-webhooks:subjectOnlyPin',
      'pix.domain.pinnedCertificates.subjects pins a subject from any CA in the truststore: anyone a trusted CA issued a certificate with that subject is admitted. Hold it to its issuer (pinnedCertificates.issuers) or pin the fingerprint.',
    );
  }
  const expiryAlarm = thresholdAlarm(scope, 'PixCertificateExpiryAlarm', {
    runbook: Runbook.PIX_CERTIFICATE_EXPIRY,
    description: `The Pix provider's client certificate expires in less than ${PIX_CERTIFICATE_WARNING_DAYS} days: get its next certificate, add its chain to the truststore and its fingerprint to pinnedCertificates (two may be pinned at once), and deploy before the provider switches.`,
    metric: metric(ReceiverMetric.CERTIFICATE_DAYS_LEFT, PIX_ROUTE, {
      period: Duration.days(1),
      statistic: cloudwatch.Stats.MINIMUM,
    }),
    threshold: PIX_CERTIFICATE_WARNING_DAYS,
    comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
  return { pins, expiryAlarm };
}
