import { JsonProtocolServer, ServiceError } from './json-protocol-server';

interface Parameter {
  readonly value: string;
  readonly type: string;
  readonly version: number;
  readonly modified: number;
}

/**
 * A local endpoint that speaks the SSM Parameter Store JSON protocol (awsJson1_1) for the calls
 * the handlers make (GetParameter, PutParameter, DeleteParameter), so the real
 * `@aws-sdk/client-ssm` can be pointed at it (`AWS_ENDPOINT_URL_SSM`). Loopback only; not a
 * security boundary. Tests read and change parameters with get() and put().
 */
export class LocalSsm extends JsonProtocolServer {
  private readonly parameters = new Map<string, Parameter>();

  constructor(
    private readonly region = 'us-east-1',
    private readonly account = '000000000000',
  ) {
    super('AmazonSSM', 'SSM');
  }

  /** A parameter's value, if it exists. */
  get(name: string): string | undefined {
    return this.parameters.get(name)?.value;
  }

  /** Every parameter name under `prefix`. */
  names(prefix = '/'): string[] {
    return [...this.parameters.keys()].filter((name) => name.startsWith(prefix)).sort();
  }

  /** Sets (or with undefined, deletes) a parameter as someone else would. */
  put(name: string, value: string | undefined): void {
    if (value === undefined) this.parameters.delete(name);
    else
      this.parameters.set(name, {
        value,
        type: 'String',
        version: (this.parameters.get(name)?.version ?? 0) + 1,
        modified: Date.now(),
      });
  }

  protected handle(operation: string, input: Record<string, unknown>): unknown {
    const name = typeof input.Name === 'string' ? input.Name : '';
    if (!name) throw new ServiceError(400, 'ValidationException', 'Name is required');
    const held = this.parameters.get(name);
    switch (operation) {
      case 'GetParameter':
        if (!held) throw new ServiceError(400, 'ParameterNotFound', `Parameter ${name} not found.`);
        return {
          Parameter: {
            Name: name,
            Type: held.type,
            Value: held.value,
            Version: held.version,
            LastModifiedDate: held.modified / 1000,
            DataType: 'text',
            ARN: `arn:aws:ssm:${this.region}:${this.account}:parameter${name.startsWith('/') ? '' : '/'}${name}`,
          },
        };
      case 'PutParameter': {
        if (held && input.Overwrite !== true)
          throw new ServiceError(
            400,
            'ParameterAlreadyExists',
            'The parameter already exists. To overwrite this value, set the overwrite option in the request to true.',
          );
        const value = typeof input.Value === 'string' ? input.Value : '';
        if (!value || value.length > 4096)
          throw new ServiceError(
            400,
            'ValidationException',
            "A standard parameter's value must be 1 to 4096 characters",
          );
        const version = (held?.version ?? 0) + 1;
        this.parameters.set(name, {
          value,
          type: typeof input.Type === 'string' ? input.Type : 'String',
          version,
          modified: Date.now(),
        });
        return { Version: version, Tier: 'Standard' };
      }
      case 'DeleteParameter':
        if (!held) throw new ServiceError(400, 'ParameterNotFound', `Parameter ${name} not found.`);
        this.parameters.delete(name);
        return {};
      default:
        throw new ServiceError(
          400,
          'InvalidAction',
          `Operation ${operation || '(none)'} is not supported by the local SSM`,
        );
    }
  }
}
