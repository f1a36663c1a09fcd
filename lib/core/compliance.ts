import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * The cdk-nag packs a rule the library acknowledges belongs to, by rule name. An
 * acknowledgement is recorded for each pack holding the rule (`<pack>::<pack>-<rule>`), so it
 * holds whichever packs a user runs; a pack not run ignores it.
 */
const RULE_PACKS = {
  /** A dead-letter queue for asynchronous invocations. */
  LambdaDLQ: ['NIST.800.53.R5', 'HIPAA.Security', 'Serverless'],
  /** Reserved concurrency. */
  LambdaConcurrency: ['NIST.800.53.R5', 'HIPAA.Security'],
  /** Active X-Ray tracing (a warning). */
  LambdaTracing: ['Serverless'],
  /** An explicit memory size. */
  LambdaDefaultMemorySize: ['Serverless'],
  /** A policy attached to one role only. */
  IAMNoInlinePolicy: ['NIST.800.53.R5', 'PCI.DSS.321', 'HIPAA.Security'],
  /** Stage caching, encrypted. */
  APIGWCacheEnabledAndEncrypted: ['NIST.800.53.R5', 'PCI.DSS.321', 'HIPAA.Security'],
  /** A client certificate for the stage's backend. */
  APIGWSSLEnabled: ['NIST.800.53.R5', 'PCI.DSS.321', 'HIPAA.Security'],
  /** A queue's own redrive policy. */
  SQSRedrivePolicy: ['Serverless'],
  /** An on-failure destination of an event source mapping. */
  LambdaEventSourceMappingDestination: ['Serverless'],
  /** A dead-letter queue of an EventBridge target. */
  EventBusDLQ: ['Serverless'],
} as const;

/** A compliance rule the library acknowledges where its design makes the finding inherent. */
export type InherentFinding = keyof typeof RULE_PACKS;

/**
 * Acknowledges `rule` on `construct` (and its children) in every pack that holds it, with the
 * reason it is inherent to the library's design. Findings that are the user's choice (no VPC,
 * no KMS key, no rotation, no backup plan, no WAF) are never acknowledged here.
 */
export function acknowledgeInherent(construct: IConstruct, rule: InherentFinding, reason: string): void {
  for (const pack of RULE_PACKS[rule])
    Validations.of(construct).acknowledge({ id: `${pack}::${pack}-${rule}`, reason });
}

/** Acknowledges the managed policy Lambda attaches to the role of a function placed in a VPC. */
export function acknowledgeVpcAccessPolicy(role: IConstruct): void {
  Validations.of(role).acknowledge({
    id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
    reason:
      "AWS's managed policy for a function in a VPC, which CDK attaches: the EC2 network interface actions Lambda needs to place the function, which take no resource-level permissions.",
  });
}

/** Why each function's role keeps its permissions in a policy of its own. */
export const ROLE_POLICY_REASON =
  "The role serves one function; its policy holds only grants scoped to that function's own resources (its log group, queue, table, secrets, bus), written by CDK's grant methods. A managed policy would be attached to nothing else and would only widen who may use it.";
