import * as ec2 from 'aws-cdk-lib/aws-ec2';
import type { Construct } from 'constructs';
import type { PropsValidation } from './props-validation';

/**
 * Where the library's functions run. In a VPC, each function reaches AWS services through the
 * VPC's endpoints or a NAT gateway, and the bank (processor, sweep, registrations) through a NAT
 * gateway: see cdk-bank-webhooks/docs/security.md for the endpoints each one needs.
 */
export interface FunctionNetworkProps {
  /**
   * VPC the library's functions are placed in (the receiver, the processor, the reconciliation
   * sweep and the registration provider's two functions).
   * @default - not in a VPC: the functions reach AWS and the bank over Lambda's own network
   */
  readonly vpc?: ec2.IVpc;
  /**
   * Subnets of `vpc` for the functions. They need a route to the bank over the internet (a NAT
   * gateway) unless only the receiver is used.
   * @default - the VPC's private subnets with egress (Lambda's default)
   */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /**
   * Security groups of the functions.
   * @default - one security group created for them, with no inbound rule and outbound HTTPS (TCP 443) only
   */
  readonly securityGroups?: ec2.ISecurityGroup[];
}

/** Checks that subnets and security groups come with a VPC; `prefix` names where the props sit. */
export function checkFunctionNetwork(v: PropsValidation, props: FunctionNetworkProps, prefix = ''): void {
  v.check(
    !(props.vpcSubnets && !props.vpc),
    `${prefix}vpcSubnets`,
    'only applies in a VPC: set vpc, or remove vpcSubnets',
  );
  v.check(
    !(props.securityGroups && !props.vpc),
    `${prefix}securityGroups`,
    'only applies in a VPC: set vpc, or remove securityGroups',
  );
  if (props.securityGroups) {
    v.check(
      props.securityGroups.length > 0 && props.securityGroups.length <= 5,
      `${prefix}securityGroups`,
      `must hold 1 to 5 security groups (Lambda's limit), got ${props.securityGroups.length}; omit it for the library's own`,
    );
  }
}

/**
 * The network of the functions created under `scope`: outside a VPC, nothing; in one, the given
 * security groups, or one made under `scope` as `id` allowing only outbound HTTPS (every call the
 * functions make, to AWS or to the bank, is HTTPS; DNS goes to the VPC resolver, which security
 * groups do not filter).
 */
export function functionNetwork(scope: Construct, id: string, props: FunctionNetworkProps): FunctionNetworkProps {
  if (!props.vpc) return {};
  const securityGroups = props.securityGroups ?? [httpsOnlySecurityGroup(scope, id, props.vpc)];
  return { vpc: props.vpc, vpcSubnets: props.vpcSubnets, securityGroups };
}

function httpsOnlySecurityGroup(scope: Construct, id: string, vpc: ec2.IVpc): ec2.SecurityGroup {
  const group = new ec2.SecurityGroup(scope, id, {
    vpc,
    description: 'cdk-bank-webhooks functions: no inbound; outbound HTTPS to AWS services and the bank',
    allowAllOutbound: false,
  });
  group.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), 'HTTPS to AWS services (endpoints or NAT) and the bank');
  return group;
}

/** Whether two sets of props place functions the same way (same VPC, subnets and security groups). */
export function sameNetwork(a: FunctionNetworkProps, b: FunctionNetworkProps): boolean {
  if (a.vpc !== b.vpc) return false;
  if (!a.vpc || !b.vpc) return true;
  const subnets = (n: FunctionNetworkProps) => n.vpc!.selectSubnets(n.vpcSubnets).subnetIds.join(',');
  const groups = (n: FunctionNetworkProps) => (n.securityGroups ?? []).map((g) => g.node.path).join(',');
  return subnets(a) === subnets(b) && groups(a) === groups(b);
}
