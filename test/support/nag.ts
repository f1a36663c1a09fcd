import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** The cdk-nag packs the examples run, by the prefix of their rule ids. */
export const NAG_PACKS = ['AwsSolutions', 'HIPAA.Security', 'NIST.800.53.R5', 'PCI.DSS.321', 'Serverless'] as const;

/** One acknowledged cdk-nag finding: where, which rule, and why. */
export interface Acknowledgment {
  readonly path: string;
  readonly id: string;
  readonly reason: string;
}

/** Every acknowledgement recorded in the tree under `root`. */
export function acknowledgments(root: IConstruct): Acknowledgment[] {
  return root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          path: construct.node.path,
          id,
          reason,
        })),
      ),
  );
}

/**
 * The acknowledged rules per pack, each as `Rule ×count` (sorted), for a reviewable listing:
 * `{ 'NIST.800.53.R5': ['IAMNoInlinePolicy ×6', ...] }`.
 */
export function acknowledgedRulesByPack(root: IConstruct): Record<string, string[]> {
  const counts = new Map<string, Map<string, number>>();
  // CDK's own (CloudFormation-Validate, on constructs such as a VPC flow log) are not cdk-nag's.
  for (const { id } of acknowledgments(root).filter((a) => NAG_PACKS.some((pack) => a.id.startsWith(`${pack}::`)))) {
    const pack = id.slice(0, id.indexOf('::'));
    const short = id.slice(2 * pack.length + 3);
    const perPack = counts.get(pack) ?? new Map<string, number>();
    perPack.set(short, (perPack.get(short) ?? 0) + 1);
    counts.set(pack, perPack);
  }
  return Object.fromEntries(
    [...counts.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([pack, rules]) => [
        pack,
        [...rules.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([rule, n]) => `${rule} ×${n}`),
      ]),
  );
}
