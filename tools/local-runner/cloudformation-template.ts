/**
 * A synthesized CloudFormation template as the local runner reads it: its resources, and the
 * intrinsic functions it resolves against the local peers (Ref, Fn::GetAtt, Fn::Join, Fn::Select,
 * Fn::Sub; any other is refused, naming it).
 */
export interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
}

export interface CloudFormationTemplate {
  readonly Resources: Record<string, TemplateResource>;
  readonly Outputs?: Record<string, { readonly Value: unknown; readonly Description?: string }>;
}

/** What `Ref` and `Fn::GetAtt` answer for the local stand-ins of a template's resources. */
export interface IntrinsicValues {
  readonly region: string;
  readonly accountId: string;
  /** The stack's id (an ARN) and name, for `AWS::StackId` and `AWS::StackName`. @default not resolved */
  readonly stackId?: string;
  readonly stackName?: string;
  /** `Ref` of a resource (a queue's URL, a table's or bus's name, a secret's ARN…). */
  readonly ref: (logicalId: string) => string;
  /** `Fn::GetAtt` of a resource. */
  readonly getAtt: (logicalId: string, attribute: string) => string;
}

/** Resolves Ref, Fn::GetAtt, Fn::Join, Fn::Select and Fn::Sub (without a variable map) in a template value. */
export function resolveIntrinsics(value: unknown, values: IntrinsicValues): unknown {
  if (Array.isArray(value)) return value.map((item) => resolveIntrinsics(item, values));
  if (!value || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 1) {
    const [[key, arg]] = entries;
    const pseudo: Record<string, string> = {
      'AWS::Region': values.region,
      'AWS::AccountId': values.accountId,
      'AWS::Partition': 'aws',
      'AWS::URLSuffix': 'amazonaws.com',
      ...(values.stackId ? { 'AWS::StackId': values.stackId } : {}),
      ...(values.stackName ? { 'AWS::StackName': values.stackName } : {}),
    };
    if (key === 'Ref') return pseudo[arg as string] ?? values.ref(arg as string);
    if (key === 'Fn::GetAtt') {
      const [logicalId, attribute] = Array.isArray(arg) ? (arg as string[]) : String(arg).split('.');
      return values.getAtt(logicalId, attribute);
    }
    if (key === 'Fn::Join') {
      const [separator, parts] = arg as [string, unknown[]];
      return (resolveIntrinsics(parts, values) as unknown[]).join(separator);
    }
    if (key === 'Fn::Select') {
      const [index, list] = arg as [number | string, unknown];
      return (resolveIntrinsics(list, values) as unknown[])[Number(index)];
    }
    if (key === 'Fn::Sub' && typeof arg === 'string') {
      return arg.replace(/\$\{([^}]+)\}/g, (_, name: string) =>
        String(resolveIntrinsics(name.includes('.') ? { 'Fn::GetAtt': name } : { Ref: name }, values)),
      );
    }
    if (key.startsWith('Fn::'))
      throw new Error(`The local runner cannot resolve ${key} (found in the synthesized template)`);
  }
  return Object.fromEntries(entries.map(([key, item]) => [key, resolveIntrinsics(item, values)]));
}
